/*
 * test_plot_labels: the pixel mapping and the greedy placement, on a
 * plot area of screen fractions 0.1 .. 0.9 both ways with log axes from
 * 1 to 100, so pixel x = 160 + 640 * log10(x), y = 810 - 360 * log10(y)
 * on the 1600x900 canvas. Expected values are worked out by hand below.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "plot_labels.h"
#include "test_util.h"

static void init(struct plot_labels *L)
{
    plot_labels_init(L, 0.1, 0.9, 0.1, 0.9, 1, 100, 1, 100);
}

static void test_plot_labels_maps_data_to_pixels(void **state)
{
    struct plot_labels L;
    (void)state;
    init(&L);
    /* x: 1600 * (0.1 + 0.8 * log10(x) / 2) */
    assert_near(plot_labels_px_x(&L, 1), 160, 1e-12);
    assert_near(plot_labels_px_x(&L, 10), 800, 1e-12);
    assert_near(plot_labels_px_x(&L, 100), 1440, 1e-12);
    /* y from the top: 900 * (1 - 0.1 - 0.8 * log10(y) / 2) */
    assert_near(plot_labels_px_y(&L, 1), 810, 1e-12);
    assert_near(plot_labels_px_y(&L, 10), 450, 1e-12);
    assert_near(plot_labels_px_y(&L, 100), 90, 1e-12);
    /* and back */
    assert_near(plot_labels_data_x(&L, 800), 10, 1e-12);
    assert_near(plot_labels_data_y(&L, 90), 100, 1e-12);
}

static void test_plot_labels_text_px_by_kind(void **state)
{
    (void)state;
    /* em per character x pt x 4/3 pixels per point */
    assert_near(plot_labels_text_px("il", 12), 0.66 * 12 * 4 / 3, 1e-12);
    assert_near(plot_labels_text_px("Ab", 15), 1.30 * 15 * 4 / 3, 1e-12);
    /* U+00D7 is two bytes but one (wide) character */
    assert_near(plot_labels_text_px("\xC3\x97", 10), 0.72 * 10 * 4 / 3, 1e-12);
    assert_near(plot_labels_text_px("", 10), 0, 0);
}

static void test_plot_labels_place_takes_nearest_spot(void **state)
{
    struct plot_labels L;
    struct plot_text code = {0};
    (void)state;
    init(&L);
    /* "A" at 12 pt: w = 0.72 * 16 + 8 = 19.52 px, line height
     * 16 * 1.35 = 21.6 px. On an empty plot the first candidate wins:
     * distance 8 to the right of (800, 450), vertically centred:
     * box x 808 .. 827.52, y 439.2 .. 460.8. The text starts 4 px in:
     * x = 10^(2 * (812 / 1600 - 0.1) / 0.8) = 10^1.01875 = 10.4412, at
     * the box's middle line y = 450 -> 10. 8 px from the point: no
     * leader (those start past 14 px). */
    assert_true(plot_labels_place(&L, &code, "A", NULL, 10, 10, 12, NAN));
    assert_string_equal(code.p, "set label 'A' at 10.4412, 10 left front boxed "
                                "font ',12'\n");
    assert_int_equal(L.ntaken, 1);
    assert_true(L.text[0]);
    assert_near(L.taken[0].x0, 808, 1e-9);
    assert_near(L.taken[0].x1, 827.52, 1e-9);
    assert_near(L.taken[0].y0, 439.2, 1e-9);
    assert_near(L.taken[0].y1, 460.8, 1e-9);
    plot_text_release(&code);
}

static void test_plot_labels_place_avoids_taken_box(void **state)
{
    struct plot_labels L;
    struct plot_text code = {0};
    struct plot_box right = {790, 90, 1440, 810};
    (void)state;
    init(&L);
    plot_labels_take(&L, &right); /* all right of x = 790 */
    /* At distance 8 every spot touches the block (3 px of air) or has
     * its corner on it; at 20 the first direction clear of it is 135
     * degrees (up-left): corner 20 * 0.7071 = 14.14 px from the point,
     * box x 800 - 14.14 - 19.52 = 766.34 .. 785.86,
     * y 450 - 14.14 - 21.6 = 414.26 .. 435.86. The leader is 20 px
     * long, so it is drawn. */
    assert_true(plot_labels_place(&L, &code, "A", NULL, 10, 10, 12, NAN));
    assert_int_equal(L.ntaken, 2);
    assert_near(L.taken[1].x0, 800 - 20 * sqrt(0.5) - 19.52, 1e-9);
    assert_near(L.taken[1].x1, 800 - 20 * sqrt(0.5), 1e-9);
    assert_near(L.taken[1].y0, 450 - 20 * sqrt(0.5) - 21.6, 1e-9);
    assert_near(L.taken[1].y1, 450 - 20 * sqrt(0.5), 1e-9);
    assert_non_null(strstr(code.p, "\nset arrow from 10, 10 to "));
    assert_int_equal(L.nleaders, 1);
    plot_text_release(&code);
}

static void test_plot_labels_place_prefers_direction(void **state)
{
    struct plot_labels L;
    struct plot_text code = {0};
    (void)state;
    init(&L);
    /* prefer up-left (135 degrees): directions more than 60 degrees off
     * cost 60, so the first within 60 degrees at distance 8 wins:
     * straight up (90), box x 800 -/+ 9.76, bottom 450 - 8 = 442. */
    assert_true(
        plot_labels_place(&L, &code, "A", NULL, 10, 10, 12, 3 * M_PI / 4));
    assert_near(L.taken[0].x0, 800 - 9.76, 1e-9);
    assert_near(L.taken[0].y1, 442, 1e-9);
    plot_text_release(&code);
}

static void test_plot_labels_place_two_lines(void **state)
{
    struct plot_labels L;
    struct plot_text code = {0};
    (void)state;
    init(&L);
    /* the box is as wide as the longer line and two lines high */
    assert_true(plot_labels_place(&L, &code, "A", "BB", 10, 10, 12, NAN));
    assert_near(L.taken[0].x1 - L.taken[0].x0, 2 * 0.72 * 16 + 8, 1e-9);
    assert_near(L.taken[0].y1 - L.taken[0].y0, 2 * 21.6, 1e-9);
    assert_non_null(strstr(code.p, "set label 'A' at "));
    assert_non_null(strstr(code.p, "\nset label 'BB' at "));
    plot_text_release(&code);
}

static void test_plot_labels_place_fails_when_no_room(void **state)
{
    struct plot_labels L;
    struct plot_text code = {0};
    struct plot_box all = {160, 90, 1440, 810};
    (void)state;
    init(&L);
    plot_labels_take(&L, &all);
    assert_false(plot_labels_place(&L, &code, "A", NULL, 10, 10, 12, NAN));
    assert_int_equal(code.len, 0);
    assert_int_equal(L.ntaken, 1);
    plot_text_release(&code);
}

static void test_plot_labels_place_roof_above_then_below(void **state)
{
    struct plot_labels L;
    struct plot_text code = {0};
    (void)state;
    init(&L);
    /* "R" at 13 pt: w = 0.72 * 13 * 4/3 + 8 = 20.48, h = 13 * 4/3 * 1.3
     * = 22.53; right end 1600 * 0.9 - 6 = 1434; above the line at
     * y = 450: bottom 445. */
    plot_labels_place_roof(&L, &code, "R", 10, "#000000");
    assert_int_equal(L.ntaken, 1);
    assert_near(L.taken[0].x1, 1434, 1e-9);
    assert_near(L.taken[0].x0, 1434 - 20.48, 1e-9);
    assert_near(L.taken[0].y1, 445, 1e-9);
    /* a second roof label at the same height goes below: top 455 */
    plot_labels_place_roof(&L, &code, "R", 10, "#555555");
    assert_int_equal(L.ntaken, 2);
    assert_near(L.taken[1].y0, 455, 1e-9);
    assert_non_null(strstr(code.p, "textcolor rgb '#555555'\n"));
    plot_text_release(&code);
}

static void test_plot_labels_take_hline_to_right_edge(void **state)
{
    struct plot_labels L;
    (void)state;
    init(&L);
    plot_labels_take_hline(&L, 10, 10);
    assert_near(L.taken[0].x0, 800, 1e-9);
    assert_near(L.taken[0].x1, 1440, 1e-9);
    assert_near(L.taken[0].y0, 449, 1e-9);
    assert_near(L.taken[0].y1, 451, 1e-9);
    assert_false(L.text[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plot_labels_maps_data_to_pixels),
        cmocka_unit_test(test_plot_labels_text_px_by_kind),
        cmocka_unit_test(test_plot_labels_place_takes_nearest_spot),
        cmocka_unit_test(test_plot_labels_place_avoids_taken_box),
        cmocka_unit_test(test_plot_labels_place_prefers_direction),
        cmocka_unit_test(test_plot_labels_place_two_lines),
        cmocka_unit_test(test_plot_labels_place_fails_when_no_room),
        cmocka_unit_test(test_plot_labels_place_roof_above_then_below),
        cmocka_unit_test(test_plot_labels_take_hline_to_right_edge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
