#ifndef PASSKEYD_CLIBEVENT_SHIM_H
#define PASSKEYD_CLIBEVENT_SHIM_H
/* glibc's fd_set must be seen before event2/event-config.h defines _GNU_SOURCE. */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
#endif
