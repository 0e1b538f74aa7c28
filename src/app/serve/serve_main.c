/* tessel serve: the placement explorer's web server. Options, the daemon's start and stop.
 * Two options are internal and left out of --help: --worker (the mode a search job's process
 * runs in, ts_worker_main) and --worker-exe PATH (the program workers exec instead of this one;
 * the tests name a missing file to see a failed start reported). Slow clients: each request has
 * TS_SERVE_REQUEST_SECONDS to arrive (the guard, guard.c), and the connection limit is high. */
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ts_serve.h"
#include "ts_serve_http.h"

/* Connections open at once, at most (fewer where the file-descriptor limit is lower). */
#define TS_SERVE_MAX_CONNECTIONS 1024u
/* Seconds a request may take to arrive whole, headers and body; while more than 3/4 of the
 * connection limit is in use, the shorter second figure. */
#define TS_SERVE_REQUEST_SECONDS 10.0
#define TS_SERVE_PRESSED_SECONDS 1.0

typedef struct {
    long port;
    const char *host;
    bool open;
    long max_searches;
    bool worker;
    const char *worker_exe; /* NULL: this program */
} ts_serve_opts;

static int ts_serve_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "tessel serve: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see tessel serve --help)\n");
    return 2;
}

static int ts_serve_long(const char *flag, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) {
        fprintf(stderr, "tessel serve: %s: expected a whole number in [%ld, %ld], got '%s'\n", flag,
                lo, hi, s);
        return 2;
    }
    *out = v;
    return 0;
}

static void ts_serve_help(void)
{
    printf("usage: tessel serve [--port P] [--host H] [--open] [--max-searches J]\n\n"
           "Starts the placement explorer, a local web application: edit a placement, search\n"
           "and compare schedules, and see their timelines, in a browser.\n\n"
           "  --port P           TCP port (default 8080; 0 picks a free one)\n"
           "  --host H           IPv4 address to listen on (default 127.0.0.1; any other\n"
           "                     address lets other machines run searches here)\n"
           "  --open             open the page in the desktop's browser (xdg-open)\n"
           "  --max-searches J   searches (worker processes) running at once (default 2)\n\n"
           "The first line on stdout is the page's address. Ctrl-C stops the server and\n"
           "every search it runs. A request must arrive whole within 10 s (1 s while the\n"
           "server is near its limit of open connections), or its connection is closed.\n"
           "Every POST and DELETE carries the page's token (GET /api/session) and, from a\n"
           "browser, an Origin naming this server: a page of another site changes nothing.\n");
}

static int ts_serve_args(int argc, char **argv, ts_serve_opts *o)
{
    static const struct option lo[] = {{"port", required_argument, 0, 'p'},
                                       {"host", required_argument, 0, 'H'},
                                       {"open", no_argument, 0, 'o'},
                                       {"max-searches", required_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {"worker", no_argument, 0, 'W'},
                                       {"worker-exe", required_argument, 0, 'X'},
                                       {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:H:j:h", lo, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (ts_serve_long("--port", optarg, 0, 65535, &o->port))
                return 2;
            break;
        case 'H': o->host = optarg; break;
        case 'o': o->open = true; break;
        case 'j':
            if (ts_serve_long("--max-searches", optarg, 1, 16, &o->max_searches))
                return 2;
            break;
        case 'W': o->worker = true; break;
        case 'X': o->worker_exe = optarg; break;
        case 'h': ts_serve_help(); return -1;
        case ':': return ts_serve_usage("%s needs a value", argv[optind - 1]);
        default: return ts_serve_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return ts_serve_usage("unexpected argument '%s'", argv[optind]);
    return 0;
}

/* Opens url with xdg-open in a grandchild (reaped by init), without a shell. */
static void ts_serve_open(const char *url)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (fork() == 0) {
            execlp("xdg-open", "xdg-open", url, (char *)NULL);
            _exit(127);
        }
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

/* The connection limit: room for many clients at once, slow ones included (the guard cuts those
 * that take too long), within what the file-descriptor limit allows once raised to its hard
 * ceiling; a reserve is kept for the workers' pipes and the files a search writes. */
static unsigned ts_serve_connection_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl))
        return 64;
    if (rl.rlim_cur < TS_SERVE_MAX_CONNECTIONS + 128 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max < TS_SERVE_MAX_CONNECTIONS + 128 ? rl.rlim_max
                                                                   : TS_SERVE_MAX_CONNECTIONS + 128;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur >= TS_SERVE_MAX_CONNECTIONS + 128)
        return TS_SERVE_MAX_CONNECTIONS;
    return rl.rlim_cur > 128 + 16 ? (unsigned)(rl.rlim_cur - 128) : 16;
}

static int ts_serve_run(const ts_serve_opts *o, const struct sockaddr_in *sa)
{
    ts_err e = {0};
    ts_guard guard;
    ts_serve_http h = {NULL, (ntohl(sa->sin_addr.s_addr) >> 24) == 127, &guard, ""};
    unsigned limit = ts_serve_connection_limit();
    if (ts_http_token_make(&h, &e)) {
        fprintf(stderr, "tessel serve: %s\n", e.msg);
        return 3;
    }
    if (ts_guard_start(&guard, limit, TS_SERVE_REQUEST_SECONDS, TS_SERVE_PRESSED_SECONDS, &e)) {
        fprintf(stderr, "tessel serve: %s\n", e.msg);
        return 3;
    }
    if (!(h.jobs = ts_jobs_new((int)o->max_searches, o->worker_exe, &e))) {
        fprintf(stderr, "tessel serve: %s\n", e.msg);
        ts_guard_stop(&guard);
        return 3;
    }
    /* The idle timeout stays as libmicrohttpd has it; the guard bounds a request's whole arrival. */
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, (uint16_t)o->port, NULL, NULL,
        ts_http_access, &h, MHD_OPTION_SOCK_ADDR, sa, MHD_OPTION_NOTIFY_COMPLETED,
        ts_http_completed, &h, MHD_OPTION_NOTIFY_CONNECTION, ts_guard_notify, &guard,
        MHD_OPTION_THREAD_POOL_SIZE, 4u, MHD_OPTION_CONNECTION_LIMIT, limit,
        MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(256 * 1024), MHD_OPTION_END);
    if (!d) {
        fprintf(stderr,
                "tessel serve: cannot listen on %s:%ld (in use, or not an address of "
                "this machine)\n",
                o->host, o->port);
        ts_jobs_free(h.jobs);
        ts_guard_stop(&guard);
        return 3;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    char url[96];
    snprintf(url, sizeof url, "http://%s:%u/", o->host, info ? info->port : (unsigned)o->port);
    printf("tessel serve: %s (Ctrl-C stops)\n", url);
    fflush(stdout);
    if (!h.loopback)
        fprintf(stderr,
                "tessel serve: warning: listening on %s, not a loopback address: other "
                "machines can reach this server and run searches on it\n",
                o->host);
    if (o->open)
        ts_serve_open(url);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    int sig = 0;
    sigwait(&set, &sig);
    fprintf(stderr, "tessel serve: stopping\n");
    MHD_stop_daemon(d);
    ts_guard_stop(&guard);
    ts_jobs_free(h.jobs);
    return 0;
}

int ts_serve_main(int argc, char **argv)
{
    ts_serve_opts o = {8080, "127.0.0.1", false, 2, false, NULL};
    int rc = ts_serve_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.worker)
        return ts_worker_main(STDIN_FILENO, 3);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)o.port);
    if (!strcmp(o.host, "localhost"))
        o.host = "127.0.0.1";
    if (inet_pton(AF_INET, o.host, &sa.sin_addr) != 1)
        return ts_serve_usage("--host: '%s' is not an IPv4 address", o.host);
    /* Threads started from here on inherit the blocked signals; sigwait takes them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    rc = ts_serve_run(&o, &sa);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    return rc;
}
