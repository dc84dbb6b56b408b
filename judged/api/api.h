/*
 * api.h - judge-api, the HTTP front door of judged (the module's one
 * header, shared by its files; nothing outside judged/api/ includes it).
 * Knows Redis and the queue protocol (queue/queue.h) and judged's
 * configuration (core.h); nothing of runner/ or sandbox/.
 * Theory of operation: server.c. Endpoints: openapi.yaml, routes.c.
 */
#ifndef JUDGED_API_H
#define JUDGED_API_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core.h"

/* ---------------------------------------------------------------- tokens */

enum { ROLE_SUBMIT = 1, ROLE_READ = 2, ROLE_SETTER = 4, ROLE_ADMIN = 8, ROLE_VIEWER = 16 };
/* The roles that read every submission, result and event, not only the
 * token's own: read, and viewer (what the admin's dashboard shows, read
 * only: pools, hosts, dead letters, history, metrics; no write at all). */
#define ROLES_READ_ALL (ROLE_READ | ROLE_VIEWER)
/* Role names as the tokens file, judgectl and a 403 spell them, by bit. */
extern const char *const API_ROLE_NAMES[5];

struct api_token {
    char name[65];
    unsigned roles;
    unsigned char hash[32];  /* SHA-256 of the bearer token */
    double bucket;           /* rate limit: tokens left */
    double refilled;         /* monotonic seconds of the last refill */
};

struct api_tokens {
    struct api_token *v;
    int n;
};

/* Parses a tokens file: "NAME ROLE[,ROLE...] SHA256HEX" per line, '#'
 * comments. -1 with err naming the file and line. */
int api_tokens_load(struct api_tokens *t, const char *path, char *err, size_t errlen);
void api_tokens_free(struct api_tokens *t);
/* Parses "submit,read" into role bits; 0 if a role is unknown. */
unsigned api_roles_parse(const char *s);
/* Lower-case hex SHA-256 of data (65 bytes with the NUL). */
void api_sha256_hex(const void *data, size_t len, char out[65]);
/* A new random token "jdt_" + 64 hex digits (256 bits). 0 ok. */
int api_token_new(char out[80]);

/* ---------------------------------------------------------------- server */

enum { ADMIT_ACCEPTED, ADMIT_DUPLICATE, ADMIT_BUSY, ADMIT_REJECTED, ADMIT_NOT_DURABLE, ADMIT_NOUTCOMES };
enum { WEBHOOK_DELIVERED, WEBHOOK_FAILED, WEBHOOK_DEAD, WEBHOOK_REFUSED, WEBHOOK_NOUTCOMES };

/* The configuration as judge-api last loaded it (main.c: at start and on
 * SIGHUP), immutable and reference-counted like judged's snapshot.c: a
 * request takes the current one when it begins (req.cfg) and puts it back
 * when it completes, so that a reload never changes pools, languages or
 * limits under a request; the last holder of a replaced one frees it. */
struct api;
struct api_conf {
    atomic_int refs;
    struct jd_config cfg;
};
/* A new snapshot owning *cfg (which is left empty), one reference held. */
struct api_conf *api_conf_new(struct jd_config *cfg);
/* A reference to the current snapshot; api_conf_put gives it back. */
struct api_conf *api_conf_get(struct api *a);
void api_conf_put(struct api_conf *c);
/* Makes c (whose reference moves to a) the current snapshot and remembers
 * its pools; NULL at the end (the pools are forgotten too). */
void api_conf_install(struct api *a, struct api_conf *c);
/* Every pool any snapshot has named since start, in the order first seen:
 * *names is a new array (free it) of names that live as long as a. */
int api_followed_pools(struct api *a, const char ***names);

struct api {
    /* The configuration judge-api started with, for what only a restart
     * changes: api.listen and the connection limits, Redis, the body
     * limit, the events hub's and the webhook threads' settings (their
     * pools follow reloads: api_followed_pools). Everything a request reads comes
     * from req.cfg. */
    const struct jd_config *start;
    pthread_mutex_t conf_lock;   /* guards conf */
    struct api_conf *conf;       /* the current configuration (a reference) */
    char **pools_seen;           /* conf_lock: every pool named since start (api_followed_pools) */
    int npools_seen;
    char redis_url[4200];
    long body_limit;
    pthread_mutex_t lock;    /* guards tokens (buckets) and the connection pool */
    struct api_tokens tokens;
    struct queue_conn **idle;    /* connections not in use */
    int nidle, cap_idle;
    char *openapi;           /* the OpenAPI document, served as is */
    size_t openapi_len;
    struct MHD_Daemon *d;
    atomic_bool stopping;
    pthread_mutex_t detached_lock;   /* guards ndetached */
    pthread_cond_t detached_done;
    int ndetached;           /* handlers running on threads of their own (api_call_detached) */
    atomic_bool webhook_groups_ready;   /* made at start, or by the reader once Redis answers */
    atomic_ulong admissions[ADMIT_NOUTCOMES];
    atomic_ulong requests;
    atomic_ulong webhooks[WEBHOOK_NOUTCOMES];
    struct sse_hub *hub;     /* the verdict events every GET /v1/events reads (events.c) */
    struct stream_count *streams;   /* event streams open per token (a.lock) */
    int nstreams, cap_streams;
    pthread_t *webhook_threads;   /* api.webhook_workers of them (webhook.c) */
    int webhook_nthreads;
    pthread_mutex_t webhook_lock;    /* guards webhook_flights */
    struct webhook_flight *webhook_flights;   /* deliveries in flight per destination and tenant */
    int webhook_nflights, webhook_capflights;
    char consumer[300];      /* this process in the webhooks consumer group */
};

/* Deliveries in flight to one destination ("d:HOST:PORT") or for one
 * tenant ("t:OWNER") (webhook.c). */
struct webhook_flight {
    char key[300];
    int n;
};

/* Event streams a token holds open: at most api.max_streams_per_token, so
 * that one token cannot hold every connection (events.c). */
struct stream_count {
    char token[65];
    int open;
};
bool api_stream_open(struct api *a, const char *token);   /* false: at the cap */
void api_stream_close(struct api *a, const char *token);
/* The client of an event stream has hung up (its socket reads EOF): the
 * stream ends now, not at its next write. fd < 0: unknown, false. A poll
 * that reads nothing: safe from any thread. */
bool api_peer_gone(int fd);
int api_conn_fd(struct MHD_Connection *conn);

/* Callbacks (ssrf.c): a globally routable address, no special-purpose
 * block of IPv4 or IPv6; deliverable: that, and none of this host's own. */
struct sockaddr;
bool api_addr_public(const struct sockaddr *sa);
bool api_addr_deliverable(const struct sockaddr *sa);
/* Admission's check of a callback_url (webhook.c): 1 with why when no
 * delivery could ever be made (webhooks off, not http(s), a name that does
 * not exist, an address api_addr_deliverable refuses), else 0. Delivery
 * checks again, against DNS changes. */
/* Whether a pool has submissions waiting and no live judge host serving
 * it (its name into pool); false too when Redis cannot be read. admin.c */
bool api_pools_unserved(struct api *a, const struct jd_config *cfg, char *pool, size_t len);
int api_callback_refused(const struct api *a, const char *url, char *why, size_t whylen);

/* The request being handled, as the router sees it. */
/* A connection that waits (an event stream with nothing to send, a long
 * poll) holds no thread: it is suspended (MHD_suspend_connection) and the
 * hub's waker resumes it when the ring holds an event it waits for, at its
 * due time, when its client has hung up, or at shutdown; its callback then
 * runs again and looks. The waiter lives in the waiting request or stream. */
struct api_waiter {
    struct MHD_Connection *conn;
    struct api_waiter *prev, *next;   /* the hub's list of suspended connections */
    int fd;                           /* the client's socket: hung up? */
    unsigned long long seq;           /* the ring's frames before it have been looked at */
    bool any;                         /* woken by any event */
    const char *owner;                /* else by this owner's events (NULL: none) */
    const char *sub;                  /* or by this submission's (NULL: none) */
    double due;                       /* monotonic seconds: woken then at the latest */
};
struct req {
    struct api *api;
    struct api_conf *conf;   /* a reference to the configuration when the request began */
    const struct jd_config *cfg;   /* &conf->cfg */
    struct MHD_Connection *conn;
    const char *method, *url;
    char *body;              /* NULL for an upload: its body goes to upload_fd */
    size_t len;              /* body bytes received (an upload's too) */
    int upload_fd;           /* an upload's file, upload_dir/upload; -1 otherwise */
    char upload_dir[40];     /* an upload's private directory (removed at the end), or "" */
    int upload_errno;        /* a failed write of the upload's file */
    bool too_big;
    bool authed;             /* the token was checked before the body (uploads) */
    long limit;              /* body bytes accepted: api's body limit, or max_package for an upload */
    const struct api_token *tok;   /* NULL: no valid bearer token */
    char tok_name[65];
    unsigned roles;
    const char *param[3];    /* the route's {...} values, in its pattern's order (routes.c) */
    /* A request whose handler suspended its connection (a long poll) is
     * answered by resume when the connection is resumed, with what it kept */
    enum MHD_Result (*resume)(struct req *r);
    struct api_waiter wait;
    char wait_id[200];       /* the submission a long poll waits for */
    double wait_deadline;    /* monotonic seconds; 0: not waiting yet */
    /* A handler on a thread of its own keeps its answer here (the access
     * handler queues it when the connection is resumed) */
    bool detached;
    struct MHD_Response *answer;
    unsigned answer_status;
};
/* Runs fn(r) on a thread of its own, r's connection suspended meanwhile
 * (a pool thread serves many connections: a handler that waits seconds
 * must not stop them); path (r->param points into it) is freed after. */
enum MHD_Result api_call_detached(struct req *r, enum MHD_Result (*fn)(struct req *r), char *path);

/* Connections to Redis come from a small pool (hiredis contexts are not
 * thread-safe; MHD's pool threads each take one while a handler runs and
 * give it back before it returns: none is held by a suspended request). */
struct queue_conn *api_conn_get(struct api *a);
void api_conn_put(struct api *a, struct queue_conn *k);

/* Responses (each queues a response on r->conn and returns MHD's result). */
enum MHD_Result api_json(struct req *r, unsigned status, json_t *body /* stolen */);
/* The same with headers: name, value, ..., NULL. */
enum MHD_Result api_json_h(struct req *r, unsigned status, json_t *body, ...);
/* An error with Retry-After (seconds, at least 1). */
enum MHD_Result api_error_retry(struct req *r, unsigned status, long retry_after, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
enum MHD_Result api_error(struct req *r, unsigned status, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
enum MHD_Result api_text(struct req *r, unsigned status, const char *type, const char *body, size_t len);
/* The same with extra headers: name, value, ..., NULL */
enum MHD_Result api_text_h(struct req *r, unsigned status, const char *type, const char *body, size_t len,
                           ...);
/* A query argument or NULL. */
const char *api_arg(struct req *r, const char *name);
/* Whether the request's token has one of the roles (admin has them all). */
bool api_has_role(const struct req *r, unsigned roles);
/* 0: the request's bearer token is known and within its rate (tok_name and
 * roles set); else a 401 or 429 was queued and *ret is its result. */
int api_authenticate(struct req *r, enum MHD_Result *ret);
/* Charges one more request to the (authenticated) request's token, for
 * work that counts as several requests (each item of a batch after the
 * first): 0, or the seconds until the token's rate allows it (nothing
 * charged; a token the tokens file no longer has is charged nothing). */
double api_charge(struct req *r);

/* ---------------------------------------------------------------- routes */

/* The route table (routes.c, theory at its top): every endpoint once. */
enum { API_GET = 1, API_HEAD = 2, API_POST = 4, API_PUT = 8, API_DELETE = 16 };
/* A route's roles are ROLE_* bits, any of which admits (admin has them
 * all); or no token at all, or any valid token. */
enum { ROUTE_PUBLIC = 0, ROUTE_ANY_TOKEN = ROLE_SUBMIT | ROLE_READ | ROLE_SETTER | ROLE_ADMIN | ROLE_VIEWER };
enum {
    ROUTE_SLASHES = 1,       /* a pattern without parameters takes trailing slashes too */
    ROUTE_UPLOAD = 2,        /* the body is a package up to max_package: token and role before it */
    ROUTE_AREA_PREFIX = 4,   /* admin: its area is every path beginning with its pattern */
    ROUTE_ANY_QUERY = 8,     /* the dashboard's files: a browser or proxy may add a query */
    ROUTE_BATCH = 16,        /* its body may be API_MAX_BATCH times the usual limit */
    ROUTE_OWN_THREAD = 32,   /* may take seconds (a validator's answer): runs on a thread of its own */
};
enum { API_MAX_PARAMS = 3 };
struct api_route {
    unsigned methods;        /* API_* bits; any other method matches no route */
    const char *pattern;     /* "/v1/problems/{name}/versions"; "{rest*}": the rest as it is */
    unsigned roles;
    const char *what;        /* what the roles are for, in a 403: "uploading problems" */
    enum MHD_Result (*fn)(struct req *r);   /* NULL: 404, after the method and role checks */
    unsigned flags;          /* ROUTE_* */
    const char *query;       /* the query parameters it reads, space-separated ("wait");
                              * any other is 400 naming it (NULL: none) */
};
/* Routes a request whose body is in: public routes, the token (unless
 * r->authed), the admin area, the route, its role, its handler. */
enum MHD_Result api_route(struct req *r);
/* The upload route a request is for, told by its method and the route's
 * fixed part (before any '{') alone, so that the token and role are checked
 * before the body even where the route will not match; NULL: none. */
const struct api_route *api_route_upload(const char *method, const char *url);
/* 403: the token lacks rt's roles. */
enum MHD_Result api_forbidden(struct req *r, const struct api_route *rt);
/* For tests: the table, and the route that method and url reach (a public
 * one first), NULL if none. */
const struct api_route *api_routes(size_t *n);
const struct api_route *api_route_find(const char *method, const char *url);

/* Webhooks (webhook.c): one delivery thread per judge-api process. */
int api_webhooks_start(struct api *a, char *err, size_t errlen);
void api_webhooks_stop(struct api *a);
enum MHD_Result api_webhook_dlq(struct req *r);
enum MHD_Result api_webhook_replay(struct req *r, const char *dlq_id);

/* The events hub (events.c): one thread reads every pool's results stream
 * for all event streams. Started before the server accepts; woken (after
 * a->stopping is set) so that waiting streams end, stopped after it. */
int api_hub_start(struct api *a, char *err, size_t errlen);
void api_hub_wake(struct api *a);
void api_hub_stop(struct api *a);

/* Suspends w->conn (call from its access handler or content reader, then
 * return without answering / 0 bytes) unless there is already something
 * for it, or judge-api is stopping: false, and nothing was suspended. */
bool api_hub_suspend(struct api *a, struct api_waiter *w);
/* The ring's end: the sequence number the next event will have. */
unsigned long long api_hub_end(struct api *a);

/* A submission body (POST /v1/submissions), parsed and checked as judge-api
 * admits it (handlers.c). Untrusted input: tests/fuzz/fuzz_submission.c. */
struct api_submission {
    json_t *json;                     /* the body; the strings point into it */
    const char *problem, *language, *source, *priority, *callback;
    size_t source_len;
    const struct jd_pool_cfg *pool;   /* the pool that serves the language */
    char *metadata;                   /* compact JSON or NULL (malloc) */
    char *packed;                     /* `files` packed (fileset.h): source points here */
};
/* 0, or -1 with field (the bad field, or "body") and msg (a sentence for
 * the 400 answer) set, both non-empty UTF-8; api_submission_free either
 * way. A problem must be a directory under cfg->problems or, when
 * problem_in_store is given, a name it accepts (the problem store); a
 * language must be served by a pool and have its LANGUAGES/ID.yaml. */
int api_submission_parse(struct api_submission *s, const char *body, size_t len,
                         const struct jd_config *cfg,
                         bool (*problem_in_store)(void *arg, const char *name), void *arg,
                         char *field, size_t fieldlen, char *msg, size_t msglen);
/* The same checks of one item of a batch (a JSON object, referenced, not
 * stolen), which may also hold the field named also. */
int api_submission_check(struct api_submission *s, json_t *item, const char *also, const struct jd_config *cfg,
                         bool (*problem_in_store)(void *arg, const char *name), void *arg, char *field,
                         size_t fieldlen, char *msg, size_t msglen);
void api_submission_free(struct api_submission *s);
/* Submissions one POST /v1/submissions/batch may hold (Judge0's default is
 * 20 too); its body may be that many times the usual body limit. */
#define API_MAX_BATCH 20

/* Handlers (handlers.c, admin.c, events.c). */
enum MHD_Result api_submit(struct req *r);
enum MHD_Result api_submit_batch(struct req *r);
enum MHD_Result api_get_submission(struct req *r, const char *id);
enum MHD_Result api_events(struct req *r);
enum MHD_Result api_submissions_list(struct req *r);
/* A results stream entry id as Redis takes one (MS or MS-SEQ, digits, each
 * within 64 bits), and their order (events.c). */
struct api_entry_id {
    unsigned long long ms, seq;
};
bool api_entry_id_parse(const char *s, struct api_entry_id *out);
int api_entry_id_cmp(struct api_entry_id x, struct api_entry_id y);
/* One verdict event's JSON, as GET /v1/events sends it and GET
 * /v1/submissions lists it (a new reference). */
json_t *api_event_json(const struct queue_event *e, const struct queue_event_about *about);
enum MHD_Result api_submission_events(struct req *r, const char *id);
enum MHD_Result api_pools(struct req *r);
enum MHD_Result api_pool_action(struct req *r, const char *pool, const char *action);
/* GET /v1/pools/NAME/history; without ?since= the last hour of it. */
#define API_HISTORY_DEFAULT_MS (3600 * 1000LL)
enum MHD_Result api_pool_history(struct req *r, const char *pool);
enum MHD_Result api_hosts(struct req *r);
enum MHD_Result api_dlq(struct req *r);
enum MHD_Result api_dlq_action(struct req *r, const char *entry, const char *action);
enum MHD_Result api_languages(struct req *r);
enum MHD_Result api_metrics(struct req *r);
enum MHD_Result api_static(struct req *r, const char *file);
/* The problem store (problems.c) and rejudges (rejudge.c). */
enum MHD_Result api_problem_put(struct req *r, const char *name);
enum MHD_Result api_problems_list(struct req *r);
/* POST /v1/problems/NAME/verify and GET /v1/problems/NAME/verify/ID (verify.c) */
enum MHD_Result api_problem_verify(struct req *r, const char *name);
enum MHD_Result api_problem_verify_get(struct req *r, const char *name, const char *id);
/* DELETE /v1/problems/NAME/verify/ID: its waiting submissions taken off the queue (verify.c) */
enum MHD_Result api_problem_verify_cancel(struct req *r, const char *name, const char *id);
enum MHD_Result api_problem_get(struct req *r, const char *name, bool only_versions);
enum MHD_Result api_problem_delete(struct req *r, const char *name);
enum MHD_Result api_upload_get(struct req *r, const char *id);
enum MHD_Result api_rejudge(struct req *r);

/* Server lifecycle (server.c). */
int api_start(struct api *a, char *err, size_t errlen);
void api_stop(struct api *a);
/* The port actually bound (listen with port 0 picks one). */
int api_port(struct api *a);

#endif
