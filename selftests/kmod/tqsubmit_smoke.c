// SPDX-License-Identifier: GPL-2.0
/*
 * The first link of the chain: inside the test VM, the freshly built
 * tqsubmit.ko is loaded and /dev/tqsubmit opens. Prints the guest's kernel
 * release so the log shows where it ran.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "kselftest_harness.h"

TEST(open_device)
{
	struct utsname u;
	int fd;

	ASSERT_EQ(0, uname(&u));
	TH_LOG("guest kernel release %s", u.release);
	fd = open("/dev/tqsubmit", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open /dev/tqsubmit: %m");
	EXPECT_EQ(0, close(fd));
}

TEST_HARNESS_MAIN
