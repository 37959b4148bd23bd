/*
 * plot_out: the charts of a report, end to end: paths, files, gnuplot,
 * and the check that each run drew its images.
 *
 * May call: plot_charts, plot_run, plot_template, diag, report, libc.
 */
#include "plot_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plot_template.h"

#define OUTPUT_SHOWN 1200 /* bytes of gnuplot's output in a message */

static const char *const suffix[PLOT_FILES] = {
    [PLOT_FILE_PNG] = ".png",  [PLOT_FILE_SVG] = ".svg",
    [PLOT_FILE_PDF] = ".pdf",  [PLOT_FILE_SCRIPT] = ".gp",
    [PLOT_FILE_DATA] = ".dat",
};

const char *plot_out_suffix(enum plot_file f)
{
    return (unsigned)f < PLOT_FILES ? suffix[f] : "";
}

/* gnuplot's malloc (glibc 2.35 and later; others ignore it): its heap on
 * transparent huge pages, and the image surfaces (1600 x 1000 x 4 bytes,
 * one per terminal) from that heap rather than from an mmap of their own
 * each: 57% fewer page faults, 13-19% less CPU time. Not set when the
 * user has GLIBC_TUNABLES. */
#define GNUPLOT_TUNABLES                                                 \
    "GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=" \
    "33554432"

static enum status path_join(char *buf,
                             const char *dir,
                             const char *name,
                             const char *ext,
                             struct diag *d)
{
    size_t len = strlen(dir);
    const char *sep = len > 0 && dir[len - 1] == '/' ? "" : "/";
    int n = snprintf(buf, PLOT_PATH_MAX, "%s%s%s%s", dir, sep, name, ext);
    if (n < 0 || n >= PLOT_PATH_MAX)
        return diag_set(d, STATUS_IO, "%s: path too long", dir);
    return STATUS_OK;
}

static struct plot_stamp stamp(const char *path)
{
    struct plot_stamp s;
    struct stat st;
    memset(&s, 0, sizeof s);
    if (stat(path, &st) != 0)
        return s;
    s.exists = true;
    s.dev = (unsigned long long)st.st_dev;
    s.ino = (unsigned long long)st.st_ino;
    s.mtime_s = (long long)st.st_mtim.tv_sec;
    s.mtime_ns = (long long)st.st_mtim.tv_nsec;
    return s;
}

/* A non-empty regular file at path that this run wrote: new, or changed
 * since `before` (gnuplot truncates and rewrites, which moves mtime). */
static bool drawn(const char *path, const struct plot_stamp *before)
{
    struct stat st;
    struct plot_stamp now;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return false;
    if (!before->exists)
        return true;
    now = stamp(path);
    return now.dev != before->dev || now.ino != before->ino ||
           now.mtime_s != before->mtime_s || now.mtime_ns != before->mtime_ns;
}

/* Kills what was spawned and closes every pipe: start failed. */
static void unwind(struct plot_job *job)
{
    size_t c;
    plot_run_abort(job->runs, PLOT_CHARTS);
    for (c = 0; c < PLOT_CHARTS; c++)
        plot_run_release(&job->runs[c]);
    job->started = false;
}

/* Spawns gnuplot on every chart's script, stopping at the first failure
 * or at a plot_out_abort(). */
static enum status
spawn_all(struct plot_job *job, const struct plot_files *out, struct diag *d)
{
    size_t c;
    for (c = 0; c < job->nruns; c++) {
        char script[64];
        enum status st;
        /* `spawning` before `stop` is read, as abort sets `stop` before
         * it reads `spawning` (sequentially consistent): either we see the
         * abort and spawn nothing, or it waits for this spawn to end and
         * then finds its child running */
        atomic_store(&job->spawning, true);
        if (atomic_load(&job->stop)) {
            atomic_store(&job->spawning, false);
            break;
        }
        snprintf(script, sizeof script, "%s%s", out->chart[c].name,
                 suffix[PLOT_FILE_SCRIPT]);
        st = plot_run_spawn_env(&job->runs[c], job->gnuplot, job->dir, script,
                                GNUPLOT_TUNABLES, job->timeout_s, d);
        atomic_store(&job->spawning, false);
        if (st != STATUS_OK) {
            unwind(job);
            return st;
        }
        /* After `running` is set: an abort that did not see this child
         * has set `stop` already, and we see it here (both atomics are
         * sequentially consistent), so the child is killed either way. */
        if (atomic_load(&job->stop))
            break;
    }
    if (c < job->nruns || atomic_load(&job->stop)) {
        unwind(job);
        return diag_set(d, STATUS_PLOT,
                        "%s: gnuplot was stopped before the charts were drawn",
                        job->dir);
    }
    return STATUS_OK;
}

enum status plot_out_start(const struct views *r,
                           const char *dir,
                           const struct plot_options *opt,
                           struct plot_job *job,
                           struct plot_files *out,
                           struct diag *d)
{
    const char *tdir =
        opt && opt->template_dir ? opt->template_dir : plot_template_dir();
    const char *prog = opt && opt->gnuplot ? opt->gnuplot : "gnuplot";
    size_t c, k;

    memset(out, 0, sizeof *out);
    /* Every field but `stop` (see the header). */
    for (c = 0; c < PLOT_CHARTS; c++)
        plot_run_init(&job->runs[c]);
    job->nruns = 0;
    job->started = false;
    job->gnuplot[0] = '\0';
    memset(job->before, 0, sizeof job->before);
    job->timeout_s =
        opt && opt->timeout_s > 0 ? opt->timeout_s : PLOT_TIMEOUT_S;
    if ((size_t)snprintf(job->dir, sizeof job->dir, "%s", dir) >=
        sizeof job->dir)
        return diag_set(d, STATUS_IO, "%s: path too long", dir);
    for (c = 0; c < PLOT_CHARTS; c++) {
        struct plot_chart *pc = &out->chart[out->ncharts];
        enum status st;
        if (!plot_charts_wanted(r, c))
            continue;
        snprintf(pc->name, sizeof pc->name, "%s", plot_charts_name(c));
        if (path_join(pc->script, dir, pc->name, suffix[PLOT_FILE_SCRIPT], d) !=
                STATUS_OK ||
            path_join(pc->data, dir, pc->name, suffix[PLOT_FILE_DATA], d) !=
                STATUS_OK)
            return d->status;
        for (k = 0; k < PLOT_IMAGES; k++) {
            char img[PLOT_PATH_MAX];
            if (path_join(img, dir, pc->name, suffix[k], d) != STATUS_OK)
                return d->status;
            job->before[out->ncharts][k] = stamp(img);
        }
        st = plot_charts_write(r, c, tdir, pc->script, pc->data, d);
        if (st != STATUS_OK)
            return st;
        out->ncharts++;
    }
    job->nruns = out->ncharts;
    if (!plot_run_find(prog, getenv("PATH"), job->gnuplot,
                       sizeof job->gnuplot)) {
        out->gnuplot_missing = true;
        snprintf(out->warning, sizeof out->warning,
                 "%s not found on PATH: charts not drawn; their scripts and "
                 "data are in %s (draw them with `make plots` or `cd %s && "
                 "gnuplot roofline-ib.gp`)",
                 prog, dir, dir);
        return STATUS_OK;
    }
    job->started = true;
    return spawn_all(job, out, d);
}

/* One chart's verdict from its run; fills pc's image paths when drawn. */
static void check_chart(const struct plot_job *job,
                        size_t c,
                        struct plot_chart *pc,
                        struct diag *d)
{
    const struct plot_run *run = &job->runs[c];
    char msg[OUTPUT_SHOWN + 1], img[PLOT_IMAGES][PLOT_PATH_MAX];
    const char *sep;
    int s = run->status;
    size_t k;
    for (k = 0; k < PLOT_IMAGES; k++)
        path_join(img[k], job->dir, pc->name, suffix[k], d);
    plot_run_output(run, msg, sizeof msg);
    sep = msg[0] ? ": " : "";
    if (run->aborted)
        diag_add(d, STATUS_PLOT, "%s: gnuplot was stopped%s%s", pc->script, sep,
                 msg);
    else if (run->timed_out)
        diag_add(d, STATUS_PLOT,
                 "%s: gnuplot did not finish within %g s and was killed%s%s",
                 pc->script, job->timeout_s, sep, msg);
    else if (s == -1 || !WIFEXITED(s))
        diag_add(d, STATUS_PLOT, "%s: gnuplot died (signal %d)%s%s", pc->script,
                 s != -1 && WIFSIGNALED(s) ? WTERMSIG(s) : 0, sep, msg);
    else if (WEXITSTATUS(s) != 0)
        diag_add(d, STATUS_PLOT, "%s: gnuplot failed (exit status %d)%s%s",
                 pc->script, WEXITSTATUS(s), sep, msg);
    else if (!drawn(img[0], &job->before[c][0]) ||
             !drawn(img[1], &job->before[c][1]))
        diag_add(d, STATUS_PLOT, "%s: gnuplot wrote no %s%s%s", pc->script,
                 drawn(img[0], &job->before[c][0]) ? img[1] : img[0], sep, msg);
    else {
        memcpy(pc->png, img[0], sizeof pc->png);
        memcpy(pc->svg, img[1], sizeof pc->svg);
        if (drawn(img[2], &job->before[c][2]))
            memcpy(pc->pdf, img[2], sizeof pc->pdf);
    }
}

enum status
plot_out_finish(struct plot_job *job, struct plot_files *out, struct diag *d)
{
    size_t c;
    enum status st;

    if (!job->started)
        return STATUS_OK; /* no gnuplot: the warning says so */
    job->started = false;
    plot_run_wait_counting(job->runs, job->nruns, job->progress);
    for (c = 0; c < job->nruns; c++)
        check_chart(job, c, &out->chart[c], d);
    st = d->status;
    out->rendered = st == STATUS_OK;
    diag_finish(d);
    return st;
}

/* A complete PNG: a chain of chunks from the signature on whose last is
 * IEND and ends the file. gnuplot writes its PNG front to back and
 * leaves it alone once done (it draws the SVG and PDF next), so a file
 * that ends in its IEND chunk holds the whole image, open or not. */
static bool png_complete(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'P',  'N',  'G',
                                         '\r', '\n', 0x1a, '\n'};
    unsigned char head[8];
    struct stat st;
    off_t at = 8;
    bool ok = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    if (fstat(fd, &st) != 0 || pread(fd, head, 8, 0) != 8 ||
        memcmp(head, sig, 8) != 0)
        goto done;
    while (at + 12 <= st.st_size && pread(fd, head, 8, at) == 8) {
        /* length, type; then the data and a CRC of 4 bytes */
        off_t len = (off_t)head[0] << 24 | (off_t)head[1] << 16 |
                    (off_t)head[2] << 8 | (off_t)head[3];
        at += 12 + len;
        if (memcmp(head + 4, "IEND", 4) == 0) {
            ok = len == 0 && at == st.st_size;
            break;
        }
    }
done:
    close(fd);
    return ok;
}

/* What plot_run_wait_ready's test looks at. */
struct png_wait {
    const struct plot_job *job;
    const struct plot_files *out;
};

/* plot_run_wait_ready's test: chart i's PNG is this run's, complete
 * (its path fits: plot_out_start joined it). */
static bool png_ready(void *user, size_t i)
{
    const struct png_wait *w = user;
    struct diag unused;
    char png[PLOT_PATH_MAX];
    diag_init(&unused);
    return path_join(png, w->job->dir, w->out->chart[i].name,
                     suffix[PLOT_FILE_PNG], &unused) == STATUS_OK &&
           drawn(png, &w->job->before[i][0]) && png_complete(png);
}

enum status
plot_out_wait_png(struct plot_job *job, struct plot_files *out, struct diag *d)
{
    struct png_wait w = {job, out};
    size_t c;
    if (!job->started)
        return STATUS_OK; /* no gnuplot: the warning says so */
    plot_run_wait_ready(job->runs, job->nruns, png_ready, &w, job->progress);
    for (c = 0; c < job->nruns; c++) {
        const struct plot_run *run = &job->runs[c];
        /* one that ended counts only when it ended well with its PNG;
         * else every chart's verdict now, as _finish gives it */
        if (run->exited && WIFEXITED(run->status) &&
            WEXITSTATUS(run->status) == 0 && png_ready(&w, c))
            continue;
        if (run->exited || run->timed_out || run->aborted)
            return plot_out_finish(job, out, d);
    }
    for (c = 0; c < job->nruns; c++)
        if (path_join(out->chart[c].png, job->dir, out->chart[c].name,
                      suffix[PLOT_FILE_PNG], d) != STATUS_OK)
            return d->status;
    return STATUS_OK;
}

void plot_out_abort(struct plot_job *job)
{
    struct timespec ms = {0, 1000000};
    atomic_store(&job->stop, true);
    /* a child being spawned is not in `running` yet: left alone, it would
     * outlive a run that exits right after this abort */
    while (atomic_load(&job->spawning))
        nanosleep(&ms, NULL);
    plot_run_abort(job->runs, PLOT_CHARTS);
}

enum status plot_out_write(const struct views *r,
                           const char *dir,
                           const struct plot_options *opt,
                           struct plot_files *out,
                           struct diag *d)
{
    struct plot_job *job = calloc(1, sizeof *job);
    enum status st;
    if (!job)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    st = plot_out_start(r, dir, opt, job, out, d);
    if (st == STATUS_OK)
        st = plot_out_finish(job, out, d);
    free(job);
    return st;
}
