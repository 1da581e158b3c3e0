// SPDX-License-Identifier: GPL-2.0
/*
 * test_ids.c - the id tables (objects.c) without a device: a cleared slot
 * is taken again under a new id, a stale id names nothing, and a table
 * churned through many objects stays as long as the most alive at once.
 */
#include <stdlib.h>

#include "selftests/tap.h"
#include "internal.h"

int main(void)
{
	static int obj[4];
	struct idtab t = { 0 };
	uint32_t a, b, c, again;
	bool stale = false;

	a = idtab_add(&t, &obj[0]);
	b = idtab_add(&t, &obj[1]);
	c = idtab_add(&t, &obj[2]);
	tap_ok(a && b && c && idtab_get(&t, a) == &obj[0] && idtab_get(&t, b) == &obj[1] &&
	       idtab_get(&t, c) == &obj[2], "three ids, each naming its object");
	tap_ok(!idtab_get(&t, 0) && !idtab_get(&t, c + 1), "no id 0, none past the table");

	idtab_clear(&t, b);
	again = idtab_add(&t, &obj[3]);
	tap_ok(again != b && idtab_get(&t, again) == &obj[3] && !idtab_get(&t, b) && t.n == 3,
	       "a cleared slot is taken again under a new id; the old one names nothing");

	/* a context's arena, over and over: the table stays at the most alive at once */
	for (int i = 0; i < 100000; i++) {
		uint32_t id = idtab_add(&t, &obj[i % 4]);

		stale |= !id || id == b || idtab_get(&t, b) || idtab_get(&t, id) != &obj[i % 4];
		idtab_clear(&t, id);
	}
	tap_ok(!stale, "100000 objects in turn: each named by its id, the stale id by none");
	tap_ok(t.n == 4 && t.cap == 16, "the table holds 4 slots (%u of %u)", t.n, t.cap);
	tap_ok(idtab_get(&t, a) == &obj[0] && idtab_get(&t, c) == &obj[2] &&
	       idtab_get(&t, again) == &obj[3], "the live ids still name their objects");
	free(t.slot);
	free(t.gen);
	return tap_done();
}
