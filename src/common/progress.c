/*
 * progress: the line that says how far a long step has gone (see
 * progress.h). The estimate of the time left is the plain one, the time
 * so far over the share done: a sweep's plans cost about the same each.
 */
#include "progress.h"

#include <string.h>

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) +
           (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static uint_fast64_t to_ns(double s)
{
    return (uint_fast64_t)(s * 1e9);
}

/* n with thousands separators ("10,160,640") into buf. */
static void thousands(uint64_t n, char *buf, size_t size)
{
    char digits[32];
    size_t len, i, at = 0;
    snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    len = strlen(digits);
    for (i = 0; i < len && at + 2 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[at++] = ',';
        buf[at++] = digits[i];
    }
    buf[at] = '\0';
}

void progress_format(const char *prog,
                     const char *what,
                     const char *unit,
                     uint64_t done,
                     uint64_t total,
                     double elapsed_s,
                     bool finished,
                     char *buf,
                     size_t size)
{
    char d[32], t[32];
    double left = done > 0 && done <= total
                      ? elapsed_s * (double)(total - done) / (double)done
                      : 0;
    thousands(done, d, sizeof d);
    thousands(total, t, sizeof t);
    if (unit[0] == '\0') /* a step without a count */
        snprintf(buf, size, "%s: %s%s %.1f s", prog, what,
                 finished ? " in" : ",", elapsed_s);
    else if (finished)
        snprintf(buf, size, "%s: %s: %s %s in %.1f s", prog, what, d, unit,
                 elapsed_s);
    else if (total == 0)
        snprintf(buf, size, "%s: %s: %s %s, %.1f s", prog, what, d, unit,
                 elapsed_s);
    else if (done == 0 || done > total)
        snprintf(buf, size, "%s: %s: %s of %s %s, %.1f s", prog, what, d, t,
                 unit, elapsed_s);
    else
        snprintf(buf, size,
                 "%s: %s: %s of %s %s (%.0f%%), %.1f s, about %.*f s left",
                 prog, what, d, t, unit, 100.0 * (double)done / (double)total,
                 elapsed_s, left < 10 ? 1 : 0, left);
}

void progress_init(struct progress *p,
                   FILE *out,
                   const char *prog,
                   enum progress_show show)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->prog = prog;
    p->on = show != PROGRESS_NEVER && out;
    p->always = show == PROGRESS_ALWAYS;
    atomic_init(&p->done, 0);
    atomic_init(&p->next_ns, 0);
    pthread_mutex_init(&p->lock, NULL);
}

void progress_release(struct progress *p)
{
    if (!p)
        return;
    progress_end(p);
    pthread_mutex_destroy(&p->lock);
}

/* Writes the line (p->lock held): '\r', the text, spaces over what is
 * left of a longer line before, and a newline when finished. */
static void show(struct progress *p, double s, bool finished)
{
    char line[PROGRESS_LINE];
    size_t n;
    progress_format(p->prog, p->what, p->unit, atomic_load(&p->done), p->total,
                    s, finished, line, sizeof line);
    n = strlen(line);
    fprintf(p->out, "\r%s%*s%s", line, p->width > n ? (int)(p->width - n) : 0,
            "", finished ? "\n" : "");
    fflush(p->out);
    p->width = finished ? 0 : n;
    p->shown = !finished;
}

void progress_begin(struct progress *p,
                    const char *what,
                    const char *unit,
                    uint64_t total)
{
    if (!p || !p->on)
        return;
    progress_end(p);
    snprintf(p->what, sizeof p->what, "%s", what);
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    p->total = total;
    atomic_store(&p->done, 0);
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    atomic_store(&p->next_ns, to_ns(p->always ? 0 : PROGRESS_AFTER_S));
    p->active = true;
    if (p->always) {
        pthread_mutex_lock(&p->lock);
        show(p, 0, false);
        atomic_store(&p->next_ns, to_ns(PROGRESS_EVERY_S));
        pthread_mutex_unlock(&p->lock);
    }
}

void progress_add(struct progress *p, uint64_t more)
{
    double s;
    if (!p || !p->on || !p->active)
        return;
    atomic_fetch_add(&p->done, more);
    s = seconds_since(&p->t0);
    if (to_ns(s) < atomic_load(&p->next_ns) ||
        pthread_mutex_trylock(&p->lock) != 0)
        return; /* not due, or another thread is writing it */
    if (to_ns(s) >= atomic_load(&p->next_ns)) {
        show(p, s, false);
        atomic_store(&p->next_ns, to_ns(s + PROGRESS_EVERY_S));
    }
    pthread_mutex_unlock(&p->lock);
}

void progress_end(struct progress *p)
{
    if (!p || !p->on || !p->active)
        return;
    pthread_mutex_lock(&p->lock);
    if (p->shown)
        show(p, seconds_since(&p->t0), true);
    p->active = false;
    pthread_mutex_unlock(&p->lock);
}
