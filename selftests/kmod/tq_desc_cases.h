/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tq_desc_cases.h - descriptors that break the ABI's validation one field at
 * a time, each with the status its error completion must carry, and valid
 * ones of every shape: the data of the module's kselftest
 * (tqsubmit_abi.c, descriptor_fields) and of tqsubmitd's test, so that both
 * transports are held to the same errno contract. The arena is 1 MiB. The
 * bad cases go, in table order, into a fresh context's SQ of at least as
 * many entries, each with its index as user_data: the chain cases
 * (TQ_DESC_F_AFTER) name their neighbours.
 * Needs raw_task() and raw_nop() (tq_util.h).
 */
#ifndef TQ_DESC_CASES_H
#define TQ_DESC_CASES_H

#include <stdint.h>
#include <string.h>
#include <linux/tqsubmit.h>

/* Each case breaks one field of a valid descriptor. */
struct bad_case {
	const char *what;
	int status;
	void (*edit)(struct tq_desc *d);
};

static void e_op0(struct tq_desc *d) { d->opcode = 0; }
static void e_op99(struct tq_desc *d) { d->opcode = 99; }
static void e_flags(struct tq_desc *d) { d->flags = 1 << 7; }
static void e_dim0(struct tq_desc *d) { d->work_dim = 0; }
static void e_dim4(struct tq_desc *d) { d->work_dim = 4; }
static void e_global0(struct tq_desc *d) { d->global[0] = 0; }
static void e_global_extra(struct tq_desc *d) { d->global[2] = 4; }
static void e_local_noflag(struct tq_desc *d) { d->local[0] = 8; }
static void e_local_zero(struct tq_desc *d) { d->flags = TQ_DESC_F_LOCAL; }
static void e_nbufs(struct tq_desc *d) { d->nr_bufs = TQ_MAX_BUFS + 1; }
static void e_nscalars(struct tq_desc *d) { d->nr_scalars = TQ_MAX_SCALARS + 1; }
static void e_len0(struct tq_desc *d) { d->bufs[0].len = 0; }
static void e_dir0(struct tq_desc *d) { d->bufs[0].dir = 0; }
static void e_dir5(struct tq_desc *d) { d->bufs[0].dir = 5; }
static void e_off_out(struct tq_desc *d) { d->bufs[0].offset = 2 << 20; }
static void e_end_out(struct tq_desc *d) { d->bufs[0].offset = (1 << 20) - 100; }
static void e_off_wrap(struct tq_desc *d) { d->bufs[0].offset = UINT64_MAX - 10; }
static void e_buf_resv(struct tq_desc *d) { d->bufs[0].resv = 1; }
static void e_scratch_off(struct tq_desc *d)
{
	d->bufs[0].dir = TQ_DIR_SCRATCH;
	d->bufs[0].offset = 4096;
}
static void e_arg_range(struct tq_desc *d) { d->bufs[0].arg = 1; }
static void e_arg_dup(struct tq_desc *d)
{
	d->nr_bufs = 2;
	d->bufs[1] = d->bufs[0];
}
static void e_scalar_size(struct tq_desc *d)
{
	d->nr_scalars = 1;
	d->scalars[0].arg = 1;
	d->scalars[0].size = 3;
}
static void e_scalar_high(struct tq_desc *d)
{
	d->nr_scalars = 1;
	d->scalars[0].arg = 1;
	d->scalars[0].size = 2;
	d->scalars[0].value = 0x10000;
}
static void e_scalar_resv(struct tq_desc *d)
{
	d->nr_scalars = 1;
	d->scalars[0].arg = 1;
	d->scalars[0].size = 4;
	d->scalars[0].resv[5] = 1;
}
static void e_unused_buf(struct tq_desc *d) { d->bufs[5].len = 1; }
static void e_unused_scalar(struct tq_desc *d) { d->scalars[3].value = 1; }
static void e_after_noflag(struct tq_desc *d) { d->after = 1; }
static void e_nop_prog(struct tq_desc *d)
{
	raw_nop(d, d->user_data);
	d->program = 1;
}
static void e_prog_nobuf(struct tq_desc *d)
{
	e_nop_prog(d);
	d->opcode = TQ_OP_PROGRAM;
	d->program = 0;
}
static void e_prog_3bufs(struct tq_desc *d)
{
	uint64_t ud = d->user_data;

	memset(d, 0, sizeof(*d));
	d->user_data = ud;
	d->opcode = TQ_OP_PROGRAM;
	d->nr_bufs = 3;
	for (int i = 0; i < 3; i++) {
		d->bufs[i].len = 16;
		d->bufs[i].dir = TQ_DIR_IN;
	}
}
static void e_prog_out(struct tq_desc *d)
{
	e_prog_3bufs(d);
	d->nr_bufs = 1;
	memset(&d->bufs[1], 0, 2 * sizeof(d->bufs[0]));
	d->bufs[0].dir = TQ_DIR_OUT;
}
static void e_prog_dim(struct tq_desc *d)
{
	e_prog_out(d);
	d->bufs[0].dir = TQ_DIR_IN;
	d->work_dim = 1;
}
static void e_kernel_builtin(struct tq_desc *d)
{
	e_prog_dim(d);
	d->work_dim = 0;
	d->opcode = TQ_OP_KERNEL;
	d->flags = TQ_DESC_F_BUILTIN;
}

static void e_flag_bit4(struct tq_desc *d) { d->flags = 1 << 4; }
static void e_after_zero(struct tq_desc *d) { d->flags = TQ_DESC_F_AFTER; }
static void e_after_nop(struct tq_desc *d)
{
	raw_nop(d, d->user_data);
	d->flags = TQ_DESC_F_AFTER;
	d->after = 1;
}
static void e_after_prog(struct tq_desc *d)
{
	e_prog_dim(d);
	d->work_dim = 0;
	d->flags = TQ_DESC_F_BUILTIN | TQ_DESC_F_AFTER;
	d->after = 1;
}
static void e_after_kernel(struct tq_desc *d)
{
	e_prog_dim(d);
	d->work_dim = 0;
	d->opcode = TQ_OP_KERNEL;
	d->flags = TQ_DESC_F_AFTER;
	d->after = 1;
}
static void e_after_far(struct tq_desc *d)
{
	d->flags = TQ_DESC_F_AFTER;
	d->after = UINT32_MAX;	/* past any SQ */
}
/* The cases go into a fresh context's SQ in table order: user_data is the index. */
static void e_after_first(struct tq_desc *d)
{
	d->flags = TQ_DESC_F_AFTER;
	d->after = (uint32_t)d->user_data + 1;	/* before the context's first descriptor */
}
/* The previous case in the table is a refused NOP (nop with idempotent flag). */
static void e_after_nontask(struct tq_desc *d)
{
	d->flags = TQ_DESC_F_AFTER;
	d->after = 1;
}
/* The previous case is a refused (or cancelled) TASK. */
static void e_after_refused(struct tq_desc *d)
{
	d->flags = TQ_DESC_F_AFTER;
	d->after = 1;
}
/* Two back: the task the previous case named already. */
static void e_after_named(struct tq_desc *d)
{
	d->flags = TQ_DESC_F_AFTER;
	d->after = 2;
}
static void e_idem_nop(struct tq_desc *d)
{
	raw_nop(d, d->user_data);
	d->flags = TQ_DESC_F_IDEMPOTENT;
}
static void e_idem_prog(struct tq_desc *d)
{
	e_prog_dim(d);
	d->work_dim = 0;
	d->flags = TQ_DESC_F_BUILTIN | TQ_DESC_F_IDEMPOTENT;
}
static void e_idem_kernel(struct tq_desc *d)
{
	e_prog_dim(d);
	d->work_dim = 0;
	d->opcode = TQ_OP_KERNEL;
	d->flags = TQ_DESC_F_IDEMPOTENT;
}
/* Classes and deadlines (TQ_FEAT_QOS): a TASK's, with a known class. */
static void e_prio5(struct tq_desc *d) { d->flags = TQ_DESC_PRIO(TQ_PRIO_MAX + 1); }
/* 64 cases at most: the SQ of the tests that send them. */
static void e_flag_bit11(struct tq_desc *d) { d->flags = 1 << 11; }
static void e_prio_nop(struct tq_desc *d)
{
	raw_nop(d, d->user_data);
	d->flags = TQ_DESC_PRIO(TQ_PRIO_HIGH);
}
static void e_deadline_nop(struct tq_desc *d)
{
	raw_nop(d, d->user_data);
	d->flags = TQ_DESC_DEADLINE(10);
}
static void e_prio_prog(struct tq_desc *d)
{
	e_prog_dim(d);
	d->work_dim = 0;
	d->flags = TQ_DESC_F_BUILTIN | TQ_DESC_PRIO(TQ_PRIO_HIGH);
}

static const struct bad_case bad_cases[] = {
	{ "opcode 0", -EOPNOTSUPP, e_op0 },
	{ "opcode 99", -EOPNOTSUPP, e_op99 },
	{ "unknown flag", -EINVAL, e_flags },
	{ "work_dim 0", -EINVAL, e_dim0 },
	{ "work_dim 4", -EINVAL, e_dim4 },
	{ "global 0", -EINVAL, e_global0 },
	{ "global beyond work_dim", -EINVAL, e_global_extra },
	{ "local without flag", -EINVAL, e_local_noflag },
	{ "flag without local", -EINVAL, e_local_zero },
	{ "nr_bufs", -E2BIG, e_nbufs },
	{ "nr_scalars", -E2BIG, e_nscalars },
	{ "buffer len 0", -EINVAL, e_len0 },
	{ "buffer dir 0", -EINVAL, e_dir0 },
	{ "buffer dir 5", -EINVAL, e_dir5 },
	{ "buffer offset outside", -EFAULT, e_off_out },
	{ "buffer end outside", -EFAULT, e_end_out },
	{ "buffer offset wraps", -EFAULT, e_off_wrap },
	{ "buffer resv", -EINVAL, e_buf_resv },
	{ "scratch with offset", -EINVAL, e_scratch_off },
	{ "arg index out of range", -EINVAL, e_arg_range },
	{ "arg index twice", -EINVAL, e_arg_dup },
	{ "scalar size 3", -EINVAL, e_scalar_size },
	{ "scalar bytes past size", -EINVAL, e_scalar_high },
	{ "scalar resv", -EINVAL, e_scalar_resv },
	{ "unused buffer not zero", -EINVAL, e_unused_buf },
	{ "unused scalar not zero", -EINVAL, e_unused_scalar },
	{ "after without the flag", -EINVAL, e_after_noflag },
	{ "nop with a program", -EINVAL, e_nop_prog },
	{ "program without source", -EINVAL, e_prog_nobuf },
	{ "program with 3 buffers", -E2BIG, e_prog_3bufs },
	{ "program source not IN", -EINVAL, e_prog_out },
	{ "program with work_dim", -EINVAL, e_prog_dim },
	{ "kernel with builtin flag", -EINVAL, e_kernel_builtin },
	{ "task with flag bit 4", -EINVAL, e_flag_bit4 },
	{ "after flag, after 0", -EINVAL, e_after_zero },
	{ "after on a nop", -EINVAL, e_after_nop },
	{ "after on a program", -EINVAL, e_after_prog },
	{ "after on a kernel", -EINVAL, e_after_kernel },
	{ "after past the SQ", -EINVAL, e_after_far },
	{ "after before the first descriptor", -EINVAL, e_after_first },
	{ "program with idempotent flag", -EINVAL, e_idem_prog },
	{ "after a refused program", -EINVAL, e_after_nontask },
	{ "nop with idempotent flag", -EINVAL, e_idem_nop },
	{ "after a refused nop", -EINVAL, e_after_nontask },
	{ "global 0, again", -EINVAL, e_global0 },
	{ "after a refused task: cancelled", -ECANCELED, e_after_refused },
	{ "after a cancelled task: cancelled", -ECANCELED, e_after_refused },
	{ "after a task already named", -EINVAL, e_after_named },
	{ "kernel with idempotent flag", -EINVAL, e_idem_kernel },
	{ "task class above the top", -EINVAL, e_prio5 },
	{ "task with flag bit 11", -EINVAL, e_flag_bit11 },
	{ "nop with a class", -EINVAL, e_prio_nop },
	{ "nop with a deadline", -EINVAL, e_deadline_nop },
	{ "program with a class", -EINVAL, e_prio_prog },
};

#define NBAD ((int)(sizeof(bad_cases) / sizeof(bad_cases[0])))
#define NGOOD 10

static void good_case(struct tq_desc *d, int i, uint64_t ud)
{
	raw_task(d, ud);
	switch (i) {
	case 0:
		break;
	case 1:		/* 3-D with work-group sizes */
		d->work_dim = 3;
		d->global[1] = d->global[2] = 4;
		d->flags = TQ_DESC_F_LOCAL;
		d->local[0] = 8;
		d->local[1] = d->local[2] = 1;
		break;
	case 2:		/* buffers and scalars, arguments interleaved */
		d->nr_bufs = 2;
		d->bufs[0].arg = 2;
		d->bufs[1] = (struct tq_buf){ .offset = (1 << 20) - 8, .len = 8,
					      .dir = TQ_DIR_INOUT, .arg = 0 };
		d->nr_scalars = 2;
		d->scalars[0] = (struct tq_scalar){ .arg = 1, .size = 8, .value = ~0ull };
		d->scalars[1] = (struct tq_scalar){ .arg = 3, .size = 1, .value = 0x7f };
		break;
	case 3:		/* device scratch memory */
		d->bufs[0] = (struct tq_buf){ .len = 1 << 30, .dir = TQ_DIR_SCRATCH };
		break;
	case 4:
		raw_nop(d, ud);
		break;
	case 5:
		e_prog_dim(d);
		d->work_dim = 0;
		d->flags = TQ_DESC_F_BUILTIN;
		break;
	case 6:		/* safe to run again */
		d->flags = TQ_DESC_F_IDEMPOTENT;
		break;
	case 7:
		d->flags = TQ_DESC_F_IDEMPOTENT | TQ_DESC_F_LOCAL;
		d->local[0] = 64;
		break;
	case 8:		/* a class of its own and a deadline */
		d->flags = TQ_DESC_PRIO(TQ_PRIO_HIGH) | TQ_DESC_DEADLINE(50);
		break;
	case 9:		/* the extremes */
		d->flags = TQ_DESC_F_LOCAL | TQ_DESC_PRIO(TQ_PRIO_MAX) |
			   TQ_DESC_DEADLINE(TQ_DEADLINE_MAX);
		d->local[0] = 64;
		break;
	}
}

#endif /* TQ_DESC_CASES_H */
