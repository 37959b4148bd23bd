/*
 * trace_read: a Chrome-trace JSON stream to kernel events (trace_read.h).
 *
 * yajl calls back for each token; the reader keeps only the path of
 * containers it is in (the depth and what the depth-1 key was) and the
 * fields of the event being read. Strings and numbers are bounded
 * before yajl sees them: a small scanner over each chunk follows string
 * quotes and escapes and stops a string at TRACE_READ_STRING_MAX bytes
 * and a number at TRACE_READ_NUMBER_MAX characters, since yajl would
 * otherwise buffer a token of any length, and lexes a token cut by the
 * end of a chunk again from its start with each chunk fed (a number of
 * n characters, one long run of digits, took n^2 / STEP steps: 10 s for
 * 16 MB, a 16 KB gzip file).
 */
#include "trace_read.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "datafile_text.h"
#include "input_file.h"

#define CHUNK (256u * 1024u)
#define STEP  (64u * 1024u) /* bytes parsed at once */

/* Where the parser is, by depth: 1 the top object, 2 traceEvents (or
 * deviceProperties), 3 one event, 4 its args, 5 args.grid. */
enum top_key { TOP_OTHER, TOP_EVENTS, TOP_DEVICES };
enum event_key { EV_OTHER, EV_CAT, EV_NAME, EV_TS, EV_DUR, EV_ARGS };
enum args_key { ARG_OTHER, ARG_STREAM, ARG_GRID };

struct reader {
    const char *path;
    trace_read_fn fn;
    void *ctx;
    struct diag *d; /* set when a callback stops the parse */
    struct trace_read_info info;
    int depth;
    int top_kind[2]; /* depth-1 container: 0 none, 1 map, 2 array */
    enum top_key top;
    bool in_events, seen_events, in_device;
    enum event_key ev_key;
    enum args_key arg_key;
    /* the event being read */
    bool is_kernel, has_name, has_ts, has_dur;
    char *name;
    size_t name_cap;
    double ts, dur;
    long stream, grid[3];
    size_t grid_n;
    /* the string scanner */
    bool in_str, esc;
    long str_len, num_len;
    double offset; /* bytes fed before this chunk */
};

static int stop(struct reader *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stops the parse with "path: event N: key: problem" (0 for yajl). */
static int stop(struct reader *r, const char *key, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->in_events)
        diag_set(r->d, STATUS_PARSE, "%s: event %zu: %s: %s", r->path,
                 r->info.events ? r->info.events - 1 : 0, key, msg);
    else
        diag_set(r->d, STATUS_PARSE, "%s: %s: %s", r->path, key, msg);
    return 0;
}

/* A number's text (not NUL-terminated) as a finite double. */
static int
number(struct reader *r, const char *s, size_t n, const char *key, double *out)
{
    char buf[TRACE_READ_NUMBER_MAX + 1]; /* scan_tokens bounds n */
    char *end;
    if (n >= sizeof buf)
        return stop(r, key, "%s", "number too long");
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtod(buf, &end);
    if (end != buf + n || !isfinite(*out) || errno == ERANGE)
        return stop(r, key, "not a finite number: %s", buf);
    return 1;
}

static int on_number(void *ctx, const char *s, size_t n)
{
    struct reader *r = ctx;
    double v;
    if (!r->in_events)
        return 1;
    if (r->depth == 3 && r->ev_key == EV_TS) {
        if (!number(r, s, n, "ts", &v))
            return 0;
        r->ts = v;
        r->has_ts = true;
    } else if (r->depth == 3 && r->ev_key == EV_DUR) {
        if (!number(r, s, n, "dur", &v))
            return 0;
        r->dur = v;
        r->has_dur = true;
    } else if (r->depth == 4 && r->arg_key == ARG_STREAM) {
        if (!number(r, s, n, "args.stream", &v))
            return 0;
        if (v < -1 || v > 1e9 || v != floor(v))
            return stop(r, "args.stream", "%s", "not a stream number");
        r->stream = (long)v;
    } else if (r->depth == 5 && r->arg_key == ARG_GRID) {
        if (!number(r, s, n, "args.grid", &v))
            return 0;
        if (v < 0 || v > 1e12 || v != floor(v))
            return stop(r, "args.grid", "%s", "not a block count");
        if (r->grid_n < 3)
            r->grid[r->grid_n] = (long)v;
        r->grid_n++;
    }
    return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    struct reader *r = ctx;
    if (r->in_device && r->depth == 3 && r->ev_key == EV_NAME &&
        !r->info.gpu[0]) {
        char raw[TRACE_READ_GPU_MAX];
        size_t k = n < sizeof raw - 1 ? n : sizeof raw - 1, i;
        memcpy(raw, s, k);
        raw[k] = '\0';
        /* a line of a data file later: shown escaped unless it is text
         * (yajl lets overlong UTF-8 through), no ';' to start a comment */
        datafile_text_quote(raw, r->info.gpu, sizeof r->info.gpu);
        for (i = 0; r->info.gpu[i]; i++)
            if (r->info.gpu[i] == ';')
                r->info.gpu[i] = '?';
        return 1;
    }
    if (!r->in_events || r->depth != 3)
        return 1;
    if (r->ev_key == EV_TS || r->ev_key == EV_DUR)
        return stop(r, r->ev_key == EV_TS ? "ts" : "dur", "%s",
                    "expected a number, got a string");
    if (r->ev_key == EV_CAT) {
        /* Kineto's two spellings: "Kernel" from its first commit
         * (ecaafbe8, 2020-09-21) to "Refactor 5/n" (1679e50e,
         * 2022-04-08; PyTorch 1.8 to 1.11), "kernel" since */
        r->is_kernel = n == 6 && (memcmp(s, "kernel", 6) == 0 ||
                                  memcmp(s, "Kernel", 6) == 0);
    } else if (r->ev_key == EV_NAME) {
        if (n + 1 > r->name_cap) {
            size_t cap = r->name_cap ? r->name_cap : 256;
            char *p;
            while (cap < n + 1)
                cap *= 2;
            p = realloc(r->name, cap);
            if (!p) {
                diag_set(r->d, STATUS_NOMEM, "%s: out of memory", r->path);
                return 0;
            }
            r->name = p;
            r->name_cap = cap;
        }
        memcpy(r->name, s, n);
        r->name[n] = '\0';
        r->has_name = true;
    }
    return 1;
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    struct reader *r = ctx;
#define IS(lit) (n == sizeof lit - 1 && memcmp(s, lit, n) == 0)
    if (r->depth == 1) {
        r->top = IS("traceEvents")        ? TOP_EVENTS
                 : IS("deviceProperties") ? TOP_DEVICES
                                          : TOP_OTHER;
    } else if (r->depth == 3 && (r->in_events || r->in_device)) {
        r->ev_key = IS("cat")    ? EV_CAT
                    : IS("name") ? EV_NAME
                    : IS("ts")   ? EV_TS
                    : IS("dur")  ? EV_DUR
                    : IS("args") ? EV_ARGS
                                 : EV_OTHER;
    } else if (r->depth == 4 && r->in_events && r->ev_key == EV_ARGS) {
        r->arg_key = IS("stream") ? ARG_STREAM
                     : IS("grid") ? ARG_GRID
                                  : ARG_OTHER;
    }
#undef IS
    return 1;
}

/* A value other than a number or a string: at a key that wants one, the
 * wrong type. */
static int on_other(void *ctx)
{
    struct reader *r = ctx;
    if (r->in_events && r->depth == 3 &&
        (r->ev_key == EV_TS || r->ev_key == EV_DUR))
        return stop(r, r->ev_key == EV_TS ? "ts" : "dur", "%s",
                    "expected a number");
    return 1;
}

static int on_bool(void *ctx, int b)
{
    (void)b;
    return on_other(ctx);
}

static int open_container(struct reader *r, bool map)
{
    if (r->depth >= TRACE_READ_DEPTH_MAX)
        return stop(r, "JSON", "nesting deeper than %s levels", "64");
    if (on_other(r) == 0)
        return 0;
    r->depth++;
    if (r->depth == 1) {
        if (!map)
            return stop(r, "JSON", "%s",
                        "expected an object with traceEvents, got an array");
    } else if (r->depth == 2 && !map && r->top == TOP_EVENTS) {
        if (r->seen_events)
            return stop(r, "traceEvents", "%s", "given twice");
        r->in_events = r->seen_events = true;
    } else if (r->depth == 2 && !map && r->top == TOP_DEVICES) {
        r->in_device = true;
    } else if (r->depth == 3 && (r->in_events || r->in_device)) {
        if (r->in_events) {
            r->info.events++;
            if (!map)
                return stop(r, "event", "%s", "expected an object");
        }
        r->ev_key = EV_OTHER;
        r->is_kernel = r->has_name = r->has_ts = r->has_dur = false;
        r->stream = -1;
        r->grid[0] = r->grid[1] = r->grid[2] = 0;
        r->grid_n = 0;
    } else if (r->depth == 4 && r->ev_key != EV_ARGS) {
        r->arg_key = ARG_OTHER;
    } else if (r->depth == 4) {
        r->arg_key = ARG_OTHER;
        if (!map)
            return stop(r, "args", "%s", "expected an object");
    }
    return 1;
}

static int on_start_map(void *ctx)
{
    return open_container(ctx, true);
}

static int on_start_array(void *ctx)
{
    return open_container(ctx, false);
}

/* The end of one event: a kernel is checked and handed on. */
static int end_event(struct reader *r)
{
    struct trace_kernel k;
    if (!r->is_kernel)
        return 1;
    if (!r->has_name)
        return stop(r, "name", "%s", "missing in a kernel event");
    if (!r->has_ts)
        return stop(r, "ts", "%s", "missing in a kernel event");
    if (!r->has_dur)
        return stop(r, "dur", "%s", "missing in a kernel event");
    if (r->dur < 0)
        return stop(r, "dur", "%s", "negative duration");
    if (r->dur > TRACE_READ_DUR_MAX_US)
        return stop(r, "dur", "%s",
                    "absurd duration (over an hour for one kernel)");
    if (r->dur > 0 && r->dur < TRACE_READ_DUR_MIN_US)
        return stop(r, "dur", "%s",
                    "shorter than a nanosecond (the profiler's clock counts "
                    "nanoseconds)");
    if (fabs(r->ts) > TRACE_READ_TS_MAX_US)
        return stop(r, "ts", "%s",
                    "beyond 2^53 microseconds: not the profiler's clock");
    r->info.kernels++;
    k.name = r->name;
    k.ts_us = r->ts;
    k.dur_us = r->dur;
    k.stream = r->stream;
    memcpy(k.grid, r->grid, sizeof k.grid);
    k.event = r->info.events - 1;
    return r->fn(r->ctx, &k, r->d) == STATUS_OK;
}

static int close_container(struct reader *r)
{
    int ok = 1;
    if (r->depth == 3 && r->in_events)
        ok = end_event(r);
    if (r->depth == 2) {
        r->in_events = false;
        r->in_device = false;
    }
    r->depth--;
    return ok;
}

static int on_end(void *ctx)
{
    return close_container(ctx);
}

static int on_null(void *ctx)
{
    return on_other(ctx);
}

static const yajl_callbacks callbacks = {
    on_null,      on_bool, NULL,   NULL,           on_number, on_string,
    on_start_map, on_key,  on_end, on_start_array, on_end};

/* A token over its bound at byte i of the chunk: "path: event N: what:
 * longer than max unit" (or "byte B" before the events). */
static enum status too_long(struct reader *r,
                            size_t i,
                            const char *what,
                            long max,
                            const char *unit)
{
    if (r->in_events)
        return diag_set(
            r->d, STATUS_PARSE, "%s: event %zu: %s: longer than %ld %s",
            r->path, r->info.events ? r->info.events - 1 : 0, what, max, unit);
    return diag_set(r->d, STATUS_PARSE, "%s: byte %.0f: %s: longer than %ld %s",
                    r->path, r->offset + (double)i, what, max, unit);
}

/* A character of a JSON number (a run of them outside strings is one
 * number; "true", "false" hold one 'e' each). */
static bool number_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
           c == 'e' || c == 'E';
}

/* Follows strings and numbers through a chunk: the bytes before the
 * first overlong token's bound (n when there is none; *over then says
 * which kind: 's'tring, 'n'umber, else 0). */
static size_t
scan_tokens(struct reader *r, const unsigned char *p, size_t n, int *over)
{
    size_t i;
    *over = 0;
    for (i = 0; i < n; i++) {
        if (!r->in_str) {
            if (p[i] == '"') {
                r->in_str = true;
                r->str_len = 0;
            }
            r->num_len = number_char(p[i]) ? r->num_len + 1 : 0;
            if (r->num_len > TRACE_READ_NUMBER_MAX) {
                *over = 'n';
                return i;
            }
            continue;
        }
        if (r->esc)
            r->esc = false;
        else if (p[i] == '\\')
            r->esc = true;
        else if (p[i] == '"') {
            r->in_str = false;
            continue;
        }
        if (++r->str_len > TRACE_READ_STRING_MAX) {
            *over = 's';
            return i;
        }
    }
    return n;
}

/* yajl's message for a parse error, into d. */
static void parse_error(struct reader *r,
                        yajl_handle h,
                        const unsigned char *p,
                        size_t n,
                        bool at_end)
{
    unsigned char *e = yajl_get_error(h, 0, p, n);
    const char *what = at_end ? "truncated JSON" : "not JSON";
    char msg[200];
    size_t k;
    snprintf(msg, sizeof msg, "%s", e ? (const char *)e : "parse error");
    for (k = 0; msg[k]; k++)
        if (msg[k] == '\n')
            msg[k] = msg[k + 1] ? ' ' : '\0';
    if (r->seen_events)
        diag_set(r->d, STATUS_PARSE, "%s: event %zu: %s: %s", r->path,
                 r->info.events ? r->info.events - 1 : 0, what, msg);
    else
        diag_set(r->d, STATUS_PARSE, "%s: byte %.0f: %s: %s", r->path,
                 r->offset + (double)(at_end ? 0 : yajl_get_bytes_consumed(h)),
                 what, msg);
    if (e)
        yajl_free_error(h, e);
}

static void reader_init(struct reader *r,
                        const char *path,
                        trace_read_fn fn,
                        void *ctx,
                        struct diag *d)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->fn = fn;
    r->ctx = ctx;
    r->d = d;
}

/* Feeds one chunk (n = 0 and last: the end). */
static enum status feed(struct reader *r,
                        yajl_handle h,
                        const unsigned char *p,
                        size_t n,
                        bool last)
{
    yajl_status st;
    while (n > 0) {
        /* in steps, of which yajl parses what comes before a token
         * found too long: that is then reported in the event it is in */
        size_t k = n < STEP ? n : STEP;
        int over;
        size_t ok = scan_tokens(r, p, k, &over);
        st = yajl_parse(h, p, ok);
        if (st == yajl_status_client_canceled)
            return r->d->status;
        if (st != yajl_status_ok) {
            parse_error(r, h, p, ok, false);
            return STATUS_PARSE;
        }
        if (over == 'n')
            return too_long(r, ok, "number", TRACE_READ_NUMBER_MAX,
                            "characters");
        if (over == 's')
            return too_long(r, ok, "string", TRACE_READ_STRING_MAX, "bytes");
        r->offset += (double)k;
        p += k;
        n -= k;
    }
    if (!last)
        return STATUS_OK;
    st = yajl_complete_parse(h);
    if (st == yajl_status_client_canceled)
        return r->d->status;
    if (st != yajl_status_ok) {
        parse_error(r, h, NULL, 0, true);
        return STATUS_PARSE;
    }
    if (!r->seen_events)
        return diag_set(r->d, STATUS_PARSE,
                        "%s: traceEvents: missing (not a Chrome trace JSON "
                        "of the PyTorch profiler)",
                        r->path);
    if (r->info.kernels == 0)
        return diag_set(r->d, STATUS_PARSE,
                        "%s: traceEvents: no kernel events (cat \"kernel\", "
                        "or \"Kernel\" before 2022) among %zu events: was the "
                        "profiler's CUDA activity on?",
                        r->path, r->info.events);
    return STATUS_OK;
}

static void finish(struct reader *r, struct trace_read_info *info)
{
    r->info.bytes = r->offset;
    if (info)
        *info = r->info;
    free(r->name);
}

enum status trace_read_mem(const void *data,
                           size_t len,
                           const char *name,
                           trace_read_fn fn,
                           void *ctx,
                           struct trace_read_info *info,
                           struct diag *d)
{
    struct reader r;
    yajl_handle h;
    enum status st;
    reader_init(&r, name, fn, ctx, d);
    h = yajl_alloc(&callbacks, NULL, &r);
    if (!h)
        return diag_set(d, STATUS_NOMEM, "%s: out of memory", name);
    st = feed(&r, h, data, len, true);
    yajl_free(h);
    finish(&r, info);
    return st;
}

/* ---- The file: plain JSON or gzip ---- */

/*
 * The bytes of a trace file, inflated when it begins with gzip's magic
 * (RFC 1952 2.3.1: 0x1f 0x8b), else as they are: what zlib's gzread()
 * does, but strict where gzread() is lenient. A gzip file is a series of
 * members (2.2) and each is inflated in turn; after a member only
 * another (its magic) or the end of the file may come, where gzread()
 * takes anything else for the end and reads no further, silently.
 */
struct source {
    FILE *f;
    const char *path;
    bool gzip, z_init, member_end, eof;
    z_stream z;
    unsigned char *in; /* CHUNK bytes of the file */
    size_t pending;    /* plain: bytes of in[] not yet handed out */
    double raw;        /* bytes read from the file */
};

/* Reads the next bytes of the file into in[]; false (d set) on error. */
static bool source_fill(struct source *src, struct diag *d)
{
    size_t n = fread(src->in, 1, CHUNK, src->f);
    if (n == 0 && ferror(src->f)) {
        diag_set(d, STATUS_IO, "%s: cannot read: %s", src->path,
                 strerror(errno));
        return false;
    }
    src->eof = n == 0;
    src->raw += (double)n;
    src->z.next_in = src->in;
    src->z.avail_in = (uInt)n;
    return true;
}

/* Opens src over f; false (d set) when out of memory or unreadable. */
static bool
source_open(struct source *src, FILE *f, const char *path, struct diag *d)
{
    memset(src, 0, sizeof *src);
    src->f = f;
    src->path = path;
    src->in = malloc(CHUNK);
    if (!src->in) {
        diag_set(d, STATUS_NOMEM, "%s: out of memory", path);
        return false;
    }
    if (!source_fill(src, d))
        return false;
    src->gzip =
        src->z.avail_in >= 2 && src->in[0] == 0x1f && src->in[1] == 0x8b;
    if (!src->gzip) {
        src->pending = src->z.avail_in;
        return true;
    }
    /* 16 + 15: a gzip wrapper, the largest window */
    if (inflateInit2(&src->z, 16 + MAX_WBITS) != Z_OK) {
        diag_set(d, STATUS_NOMEM, "%s: out of memory", path);
        return false;
    }
    src->z_init = true;
    return true;
}

static void source_close(struct source *src)
{
    if (src->z_init)
        inflateEnd(&src->z);
    free(src->in);
}

/* Where the next member must begin: its magic, or the end of the file;
 * false (d set) at anything else. */
static bool next_member(struct source *src, struct diag *d)
{
    if (src->z.avail_in == 0 && !src->eof && !source_fill(src, d))
        return false;
    if (src->z.avail_in == 0)
        return true; /* the end: the caller sees eof */
    if (src->z.next_in[0] != 0x1f) {
        diag_set(d, STATUS_PARSE,
                 "%s: compressed byte %.0f: data after the gzip stream that "
                 "is no gzip member",
                 src->path, src->raw - (double)src->z.avail_in);
        return false;
    }
    inflateReset(&src->z);
    src->member_end = false;
    return true;
}

/* Up to size bytes of JSON into out: *n of them, 0 at the end; false (d
 * set, json_at the JSON bytes read before) on error. */
static bool source_read(struct source *src,
                        unsigned char *out,
                        size_t size,
                        size_t *n,
                        double json_at,
                        struct diag *d)
{
    *n = 0;
    if (!src->gzip) {
        if (src->pending > 0) { /* the first bytes, read to look */
            *n = src->pending < size ? src->pending : size;
            memcpy(out, src->z.next_in, *n);
            src->z.next_in += *n;
            src->pending -= *n;
            return true;
        }
        *n = fread(out, 1, size, src->f);
        src->raw += (double)*n;
        if (*n == 0 && ferror(src->f)) {
            diag_set(d, STATUS_IO, "%s: cannot read: %s", src->path,
                     strerror(errno));
            return false;
        }
        return true;
    }
    while (*n == 0) {
        int zr;
        if (src->member_end) {
            if (!next_member(src, d))
                return false;
            if (src->member_end || (src->z.avail_in == 0 && src->eof))
                return true;
        }
        if (src->z.avail_in == 0 && !source_fill(src, d))
            return false;
        if (src->z.avail_in == 0) {
            diag_set(d, STATUS_PARSE,
                     "%s: byte %.0f: cannot read: unexpected end of file "
                     "(a gzip member cut short)",
                     src->path, json_at);
            return false;
        }
        src->z.next_out = out;
        src->z.avail_out = (uInt)size;
        zr = inflate(&src->z, Z_NO_FLUSH);
        *n = size - src->z.avail_out;
        if (zr == Z_STREAM_END) {
            src->member_end = true;
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            diag_set(d, zr == Z_MEM_ERROR ? STATUS_NOMEM : STATUS_PARSE,
                     "%s: byte %.0f: cannot read: %s", src->path,
                     json_at + (double)*n,
                     src->z.msg ? src->z.msg : "not gzip data");
            return false;
        }
    }
    return true;
}

enum status trace_read_file(const char *path,
                            trace_read_fn fn,
                            void *ctx,
                            FILE *progress,
                            struct trace_read_info *info,
                            struct diag *d)
{
    struct reader r;
    struct source src;
    yajl_handle h = NULL;
    unsigned char *buf = NULL;
    double size = 0;
    FILE *f;
    size_t fsize;
    int shown = -1;
    enum status st = STATUS_OK;

    reader_init(&r, path, fn, ctx, d);
    /* the one reader's checks: a regular file, opened without blocking
     * on a FIFO */
    if (input_file_open(path, 0, &f, &fsize, d) != STATUS_OK)
        return d->status;
    size = (double)fsize;
    buf = malloc(CHUNK);
    h = yajl_alloc(&callbacks, NULL, &r);
    if (!source_open(&src, f, path, d) || !buf || !h) {
        st = d->status != STATUS_OK
                 ? d->status
                 : diag_set(d, STATUS_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (;;) {
        size_t n;
        if (!source_read(&src, buf, CHUNK, &n, r.offset, d)) {
            st = d->status;
            goto done;
        }
        st = feed(&r, h, buf, n, n == 0);
        if (st != STATUS_OK || n == 0)
            break;
        if (progress && size > 0) {
            int pct = (int)(100.0 * src.raw / size);
            if (pct != shown && pct <= 100) {
                shown = pct;
                fprintf(progress, "\rroofplan: reading %s: %3d%%", path, pct);
                fflush(progress);
            }
        }
    }
done:
    if (progress && shown >= 0)
        fputc('\n', progress);
    if (h)
        yajl_free(h);
    free(buf);
    source_close(&src);
    fclose(f);
    finish(&r, info);
    return st;
}
