// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * events.c - the events of captured commands: user events of the context
 * that answer, to the program's queries, as the commands they stand for;
 * their references, status and profiling times.
 */
#include <string.h>

#include "tqcl.h"

RETAIN(RetainEvent, cl_event, evs, tqcl_op, app_refs)

static cl_int CL_API_CALL l_ReleaseEvent(cl_event ev)
{
	struct tqcl_op *op;
	cl_int err;

	LOCK();
	op = tqcl_map_get(&tqcl.evs, ev);
	/* the driver's reference first: ours may be the last */
	err = tqcl_next.clReleaseEvent(ev);
	if (op && !err)
		tqcl_op_unref(op);
	UNLOCK();
	return err;
}

cl_int tqcl_info_ret(const void *v, size_t n, size_t size, void *value, size_t *size_ret)
{
	if (value) {
		if (size < n)
			return CL_INVALID_VALUE;
		memcpy(value, v, n);
	}
	if (size_ret)
		*size_ret = n;
	return CL_SUCCESS;
}

static const cl_command_type cmd_types[] = {
	[C_WRITE] = CL_COMMAND_WRITE_BUFFER,
	[C_READ] = CL_COMMAND_READ_BUFFER,
	[C_KERNEL] = CL_COMMAND_NDRANGE_KERNEL,
};

/* Our events answer as the commands they stand for; the rest is the user event's. */
static cl_int CL_API_CALL l_GetEventInfo(cl_event ev, cl_event_info name, size_t size,
					 void *value, size_t *size_ret)
{
	struct tqcl_op *op;
	cl_command_queue q;
	cl_command_type t;
	cl_int st;

	LOCK();
	op = tqcl_map_get(&tqcl.evs, ev);
	if (op) {
		q = op->queue;
		t = cmd_types[op->cmd];
		st = op->shown;
	}
	UNLOCK();
	if (op) {
		switch (name) {
		case CL_EVENT_COMMAND_QUEUE:
			return tqcl_info_ret(&q, sizeof(q), size, value, size_ret);
		case CL_EVENT_COMMAND_TYPE:
			return tqcl_info_ret(&t, sizeof(t), size, value, size_ret);
		case CL_EVENT_COMMAND_EXECUTION_STATUS:
			return tqcl_info_ret(&st, sizeof(st), size, value, size_ret);
		}
	}
	return tqcl_next.clGetEventInfo(ev, name, size, value, size_ret);
}

/*
 * Profiling of a captured command (only on profiling queues, with
 * TQCL_PROFILING=1): CLOCK_MONOTONIC times; a kernel's START..END is its
 * whole task, copies included, as tq reports it.
 */
static cl_int CL_API_CALL l_GetEventProfilingInfo(cl_event ev, cl_profiling_info name,
						  size_t size, void *value, size_t *size_ret)
{
	struct tqcl_op *op;
	cl_ulong t = 0;
	bool ok = false, prof = false;

	LOCK();
	op = tqcl_map_get(&tqcl.evs, ev);
	if (op) {
		prof = op->props & CL_QUEUE_PROFILING_ENABLE;
		ok = op->signalled && op->status == CL_COMPLETE;
		switch (name) {
		case CL_PROFILING_COMMAND_QUEUED:
			t = op->t_queued;
			break;
		case CL_PROFILING_COMMAND_SUBMIT:
			t = op->t_submit ? op->t_submit : op->t_queued;
			break;
		case CL_PROFILING_COMMAND_START:
			t = op->t_start;
			break;
		case CL_PROFILING_COMMAND_END:
		case CL_PROFILING_COMMAND_COMPLETE:
			t = op->t_end;
			break;
		default:
			UNLOCK();
			return CL_INVALID_VALUE;
		}
	}
	UNLOCK();
	if (!op)
		return tqcl_next.clGetEventProfilingInfo(ev, name, size, value, size_ret);
	if (!prof || !ok)
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	return tqcl_info_ret(&t, sizeof(t), size, value, size_ret);
}

/* Our events are commands' events, not the program's user events. */
static cl_int CL_API_CALL l_SetUserEventStatus(cl_event ev, cl_int status)
{
	bool ours;

	LOCK();
	ours = tqcl_map_get(&tqcl.evs, ev) != NULL;
	UNLOCK();
	if (ours)
		return CL_INVALID_EVENT;
	return tqcl_next.clSetUserEventStatus(ev, status);
}

/* The functions of this file in the layer's dispatch table @t. */
void tqcl_override_events(struct _cl_icd_dispatch *t)
{
	OVERRIDE(t, RetainEvent);
	OVERRIDE(t, ReleaseEvent);
	OVERRIDE(t, GetEventInfo);
	OVERRIDE(t, GetEventProfilingInfo);
	OVERRIDE(t, SetUserEventStatus);
}
