#ifndef PASSKEYD_CLIBEVENT_SHIM_H
#define PASSKEYD_CLIBEVENT_SHIM_H
/* glibc's fd_set must be seen before event2/event-config.h defines _GNU_SOURCE. */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/listener.h>
#include <event2/keyvalq_struct.h>
#include <event2/dns.h>

/* Runs a bufferevent's write callback in this turn of its loop instead of after the next poll finds the socket
 * writable: libevent 2.1's socket bufferevents (plain, and OpenSSL's on a socket) only add their write event when
 * output is queued, so each response otherwise costs an epoll_ctl to watch for writability, a poll, and another
 * epoll_ctl to stop watching.
 * Activated here, the callback writes at once and removes the write event in the same turn, and the two changes
 * cancel in the epoll changelist. The write event is the bufferevent's own: `struct bufferevent` (bufferevent_struct.h,
 * which is not included because completing `struct event` and `struct bufferevent` would change how Swift imports
 * every pointer to them) begins with two pointers, the read event and the write event. The candidate is used only
 * when libevent itself says it is a write event of this bufferevent's socket whose callback argument is the
 * bufferevent; otherwise nothing happens and the write waits for the poll as before. Returns whether it was activated.
 * Freeing the bufferevent finalizes the event, which takes it off the active queue. */
static inline int pk_bufferevent_write_now(struct bufferevent *bufferEvent) {
    struct event *candidate = (struct event *)((char *)bufferEvent + 2 * sizeof(void *) + event_get_struct_event_size());
    if (event_get_callback_arg(candidate) != (void *)bufferEvent) return 0;
    if (event_get_fd(candidate) != bufferevent_getfd(bufferEvent)) return 0;
    if ((event_get_events(candidate) & (EV_WRITE | EV_READ)) != EV_WRITE) return 0;
    if (event_get_base(candidate) != bufferevent_get_base(bufferEvent)) return 0;
    event_active(candidate, EV_WRITE, 1);
    return 1;
}
#endif
