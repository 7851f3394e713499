/*
 * What the two adapters of this library share to offer the one adapter
 * model of ddp.h (*_connect_to, *_listen_on, ddp_connecting,
 * ddp_listener), and the ownership of the sessions they make. Internal: not installed; a
 * third-party LLP needs only ddp/llp.h. libddp exports these functions for libddp-mpa and
 * libddp-sctp (mk/install.mk).
 */
#ifndef DDP_CONN_GLUE_H
#define DDP_CONN_GLUE_H

#include <ddp/ddp.h>

/* What an adapter's *_connect_to / *_listen_on keep for the ULP: its
 * callbacks and user pointer. ddp_conn_trampolines() are the DDP data-path
 * callbacks of such a session: give them to ddp_session_new() with the
 * ddp_conn_glue as user, and they call the ULP's with its user pointer. */
typedef struct ddp_conn_glue {
	ddp_conn_callbacks cb;
	void *user;
	int dead; /* down() was called: the trampolines call nothing more */
} ddp_conn_glue;
DDP_API const ddp_callbacks *ddp_conn_trampolines(void);

/* A session an adapter made and frees itself (with its MPA connection,
 * its SCTP association): after ddp_session_set_owned(), the application's
 * ddp_session_free() is refused with DDP_ERR_STATE and frees nothing; the
 * adapter frees it with ddp_session_free_owned() (the same as
 * ddp_session_free() otherwise). */
DDP_API void ddp_session_set_owned(ddp_session *s);
DDP_API int ddp_session_free_owned(ddp_session *s);

/* A connect in progress behind ddp_connecting (ddp.h): the adapter embeds
 * it; ddp_connect_cancel() calls cancel, which frees what the connect
 * held. */
struct ddp_connecting {
	void (*cancel)(struct ddp_connecting *h);
};

/* A listener of either adapter behind ddp_listener (ddp.h). */
typedef struct ddp_listener_ops {
	void (*free)(void *impl);
	int (*port)(const void *impl);
} ddp_listener_ops;
/* Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM. */
DDP_API int ddp_listener_new(const ddp_listener_ops *ops, void *impl, ddp_listener **out);

#endif
