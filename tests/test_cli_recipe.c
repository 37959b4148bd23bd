/*
 * test_cli_recipe: the training recipe a run plans at, in words
 * (cli_recipe.c, issue 37): whose (an INI model's own [training], the
 * training file given with -t, or the data directory's default, borrowed)
 * with the name its file gives it, the sequence length, the global batch
 * in sequences and tokens per step, the token budget, the --set that
 * changed one, and the sweep's batch where the sweep names one. Every
 * expected sentence is written out by hand from the fixture files; the
 * tests of the default recipe run in a temporary directory whose
 * data/defaults.ini names a recipe of the test's own, so no shipped
 * recipe's name is assumed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "test_util.h"

#define SNAP "tests/data/snap/"

/* The words of model m (path, with the overrides sets) under cfg and the
 * sweep sf, into buf; returns the origin. */
static enum cli_recipe_origin words_of(const struct cli_config *cfg,
                                       const char *path,
                                       const char *set,
                                       const struct sweep_file *sf,
                                       char *buf,
                                       size_t size)
{
    struct model m;
    struct datafile_set s;
    enum cli_recipe_origin o;
    if (set)
        util_set(&s, set);
    util_model(&m, path, set ? &s : NULL, set ? 1 : 0);
    o = cli_recipe_words(cfg, &m, sf, buf, size);
    model_release(&m);
    return o;
}

/* tests/data/tiny-dense.ini: [training] without a source, 1,024-token
 * sequences, 64 per batch (64 x 1,024 = 65,536 tokens: 65.5K), a budget
 * of 1e9 tokens (1B). */
static void test_cli_recipe_own(void **state)
{
    struct cli_config cfg;
    char buf[1600];
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    assert_int_equal(words_of(&cfg, "tests/data/tiny-dense.ini", NULL, NULL,
                              buf, sizeof buf),
                     CLI_RECIPE_OWN);
    assert_string_equal(buf, "the model file's own, tests/data/tiny-dense.ini "
                             "[training]. Sequence 1,024 tokens; global "
                             "batch 64 sequences, 65.5K tokens per step; "
                             "token budget 1B tokens.");
}

/* Llama 3 405B's file: [training] source = arXiv 2407.21783 §3.1.1 and
 * §3.4.1; 8,192-token sequences, 2,048 per batch (16,777,216 tokens:
 * 16.8M) with the batch's own source; 15.6e12 tokens. A --set of the
 * batch replaces its source (1,024 x 8,192 = 8,388,608: 8.39M); -t is
 * said to be unread. */
static void test_cli_recipe_own_sources_and_sets(void **state)
{
    struct cli_config cfg;
    char buf[1600];
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    words_of(&cfg, SNAP "models/llama-3-405b.ini", NULL, NULL, buf, sizeof buf);
    assert_string_equal(
        buf, "the model file's own, " SNAP "models/llama-3-405b.ini "
             "[training] (arXiv 2407.21783 §3.1.1 and §3.4.1). Sequence "
             "8,192 tokens; global batch 2,048 sequences, 16.8M tokens per "
             "step (Table 4: 16M tokens per batch at 8K sequence length); "
             "token budget 15.6T tokens.");
    cfg.training_path = "no/such/recipe.ini";
    words_of(&cfg, SNAP "models/llama-3-405b.ini", "training.global_batch=1024",
             NULL, buf, sizeof buf);
    assert_string_equal(
        buf, "the model file's own, " SNAP "models/llama-3-405b.ini "
             "[training] (arXiv 2407.21783 §3.1.1 and §3.4.1); -t is not "
             "read: an INI model file states its own recipe. Sequence 8,192 "
             "tokens; global batch 1,024 sequences, 8.39M tokens per step "
             "(--set training.global_batch=1024); token budget 15.6T "
             "tokens.");
}

/* The sweep's batch where it names one: DeepSeek-V3's file says 15,360
 * and the snapshot's sweep says 15,360 too (line 17): the same; --set
 * space.gbs=4096: 4,096 x 4,096 = 16,777,216 tokens (16.8M); a list with
 * `model` names the recipe's among the sweep's. */
static void test_cli_recipe_sweep_batch(void **state)
{
    static const char *const tail_same =
        "token budget 14.8T tokens. The sweep names the same global batch "
        "(" SNAP "sweeps/default.ini:17: space.gbs).";
    static const char *const tail_4096 =
        "token budget 14.8T tokens. Global batch from the sweep, not the "
        "recipe: 4,096 sequences, 16.8M tokens per step (" SNAP
        "sweeps/default.ini: --set space.gbs=4096).";
    static const char *const tail_list =
        "token budget 14.8T tokens. Global batches from the sweep: the "
        "recipe's, 4,096 and 8,192 sequences (" SNAP
        "sweeps/default.ini: --set space.gbs=model 4096 8192).";
    struct cli_config cfg;
    struct sweep_file sf;
    struct datafile_set s;
    struct diag d;
    char buf[1600];
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    diag_init(&d);
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, NULL, 0, &d),
                     STATUS_OK);
    words_of(&cfg, SNAP "models/deepseek-v3.ini", NULL, &sf, buf, sizeof buf);
    assert_string_equal(buf + strlen(buf) - strlen(tail_same), tail_same);
    sweep_release(&sf);
    util_set(&s, "space.gbs=4096");
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, &s, 1, &d),
                     STATUS_OK);
    words_of(&cfg, SNAP "models/deepseek-v3.ini", NULL, &sf, buf, sizeof buf);
    assert_string_equal(buf + strlen(buf) - strlen(tail_4096), tail_4096);
    sweep_release(&sf);
    util_set(&s, "space.gbs=model 4096 8192");
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, &s, 1, &d),
                     STATUS_OK);
    words_of(&cfg, SNAP "models/deepseek-v3.ini", NULL, &sf, buf, sizeof buf);
    assert_string_equal(buf + strlen(buf) - strlen(tail_list), tail_list);
    sweep_release(&sf);
}

/* ---- A config.json's recipe, in a temporary data directory ---- */

struct tmp_cwd {
    char home[1024]; /* where the test binary ran from */
    char dir[64];    /* the temporary directory, the cwd during the test */
};

/* A temporary cwd holding data/defaults.ini, whose training recipe is
 * data/training/lab.ini, and a recipe of one's own, mine.ini. */
static int enter_tmp(void **state)
{
    static struct tmp_cwd t;
    snprintf(t.dir, sizeof t.dir, "/tmp/roofplan-test-recipe-XXXXXX");
    if (!getcwd(t.home, sizeof t.home) || !mkdtemp(t.dir) ||
        chdir(t.dir) != 0 || mkdir("data", 0700) != 0 ||
        mkdir("data/training", 0700) != 0)
        return -1;
    util_write_text(
        NULL, "data/defaults.ini",
        "[inputs]\nmodel = models/m.ini\nhardware = hardware/h.ini\n"
        "sweep = sweeps/s.ini\ntraining = training/lab.ini\n"
        "stack = stacks/st.ini\n");
    util_write_text(NULL, "data/training/lab.ini",
                    "[training]\nsource = A lab's published recipe\n"
                    "seq_len = 4096\ntokens = 2e12\nglobal_batch = 1024\n");
    util_write_text(NULL, "mine.ini",
                    "[training]\nsource = our own plan\n"
                    "seq_len = 2048\ntokens = 5e11\n"
                    "global_batch = 512\n");
    *state = &t;
    return 0;
}

static int leave_tmp(void **state)
{
    struct tmp_cwd *t = *state;
    if (chdir(t->home) != 0)
        return -1;
    return util_remove_tree(t->dir) == 0 ? 0 : -1;
}

/* The words of the config.json qwen3-8b with the recipe at recipe, cfg's
 * -t as given. */
static enum cli_recipe_origin json_words(const struct tmp_cwd *t,
                                         const char *given,
                                         const char *recipe,
                                         char *buf,
                                         size_t size)
{
    struct cli_config cfg;
    struct model m;
    struct diag d;
    char path[1200];
    enum cli_recipe_origin o;
    memset(&cfg, 0, sizeof cfg);
    cfg.training_path = given;
    snprintf(path, sizeof path, "%s/tests/data/hf/qwen3-8b.config.json",
             t->home);
    diag_init(&d);
    if (model_load_with_training(path, recipe, &m, NULL, 0, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    o = cli_recipe_words(&cfg, &m, NULL, buf, size);
    model_release(&m);
    return o;
}

/* -t mine.ini: the training file given (2,048 x 512 = 1,048,576 tokens:
 * 1.05M; 5e11: 500B); no -t: the default recipe, borrowed, named as its
 * file names itself (4,096 x 1,024 = 4,194,304: 4.19M; 2e12: 2T); -t
 * naming the default file another way: borrowed all the same. */
static void test_cli_recipe_json(void **state)
{
    const struct tmp_cwd *t = *state;
    char buf[1600];
    assert_int_equal(json_words(t, "mine.ini", "mine.ini", buf, sizeof buf),
                     CLI_RECIPE_FILE);
    assert_string_equal(buf, "the training file given with -t, mine.ini "
                             "(our own plan). Sequence 2,048 tokens; global "
                             "batch 512 sequences, 1.05M tokens per step; "
                             "token budget 500B tokens.");
    assert_int_equal(
        json_words(t, NULL, "data/training/lab.ini", buf, sizeof buf),
        CLI_RECIPE_BORROWED);
    assert_string_equal(
        buf, "BORROWED, not this model's own: the default recipe, "
             "data/training/lab.ini (A lab's published recipe), as a "
             "config.json does not say how its model was trained (pass -t "
             "FILE with its own). Sequence 4,096 tokens; global batch 1,024 "
             "sequences, 4.19M tokens per step; token budget 2T tokens.");
    assert_int_equal(json_words(t, "./data/../data/training/lab.ini",
                                "./data/../data/training/lab.ini", buf,
                                sizeof buf),
                     CLI_RECIPE_BORROWED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_recipe_own),
        cmocka_unit_test(test_cli_recipe_own_sources_and_sets),
        cmocka_unit_test(test_cli_recipe_sweep_batch),
        cmocka_unit_test_setup_teardown(test_cli_recipe_json, enter_tmp,
                                        leave_tmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
