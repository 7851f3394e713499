/*
 * One lifetime rule for every object that calls the application back
 * (MPA connection, SCTP endpoint and association, listener, RDMAP queue
 * pair): freeing it inside any of its callbacks is safe and silences it at
 * once; its memory goes when the last frame that uses it has unwound.
 *
 * The mechanism is the one libevent uses for bufferevents: a count of the
 * frames of ours on the stack that use the object (taken by every event
 * handler and every API call that may call back) and a closing flag set
 * by the free. While closing, no callback of any kind runs, nothing is
 * placed and nothing is read or written; the frame that leaves last
 * releases the object (at once, or from the event loop where frames of
 * other layers may still be below it).
 *
 * Header-only, no dependencies: the core and every adapter use it.
 */
#ifndef DDP_LIFE_H
#define DDP_LIFE_H

#include <stdint.h>

struct ddp_life {
	uint32_t frames;  /* frames of ours on the stack using the object */
	uint8_t closing;  /* freed by its owner */
	uint8_t silent;   /* freed while a frame used it: no callback more */
	uint8_t released; /* the release ran or is queued: never twice */
};

/* A frame starts using the object. */
static inline void life_enter(struct ddp_life *l)
{
	l->frames++;
}

/* A frame stops using it. Returns 1 when the object was freed meanwhile
 * and this was its last frame: the caller releases it now (once). */
static inline int life_leave(struct ddp_life *l)
{
	if (--l->frames > 0 || !l->closing || l->released)
		return 0;
	l->released = 1;
	return 1;
}

/* The owner frees the object. Returns 1 when no frame uses it: the caller
 * releases it now (work still queued may complete through the callbacks
 * during that release, as the header of the object says). Returns 0 when
 * a frame still uses it: from now on it is silent (no callback of any
 * kind), and the last life_leave releases it; or when the free was
 * already made. */
static inline int life_close(struct ddp_life *l)
{
	if (l->closing)
		return 0;
	l->closing = 1;
	if (l->frames > 0) {
		l->silent = 1;
		return 0;
	}
	l->released = 1;
	return 1;
}

/* 1 while callbacks may run: not freed inside a frame. */
static inline int life_live(const struct ddp_life *l)
{
	return !l->silent;
}

#endif
