/*
 * test_datafile_text: the text rule (well-formed UTF-8 without control
 * characters, RFC 3629 and XML 1.0) and how everything else is quoted in
 * messages.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "datafile_text.h"

/* UTF-8 by RFC 3629 (Unicode Table 3-7) and the characters XML 1.0 and
 * a terminal take as text; columns count characters from 1. */
static void test_datafile_text_check(void **state)
{
    static const struct {
        const char *text, *why;
        size_t column;
    } bad[] = {
        {"a\x1b[31m", "control character U+001B", 2},
        {"\xc3\xa9\x7f", "control character U+007F", 2}, /* DEL */
        {"ab\xc2\x9b", "control character U+009B", 3},   /* C1 CSI */
        {"a\rb", "carriage return (U+000D) that does not end the line", 2},
        {"\xc0\xaf", "invalid UTF-8 (byte 0xC0)", 1},         /* overlong */
        {"x\xe0\x80\xaf", "invalid UTF-8 (byte 0xE0)", 2},    /* overlong */
        {"\xed\xa0\x80", "invalid UTF-8 (byte 0xED)", 1},     /* surrogate */
        {"\xf4\x90\x80\x80", "invalid UTF-8 (byte 0xF4)", 1}, /* > 10FFFF */
        {"\xe2\x82", "invalid UTF-8 (byte 0xE2)", 1},         /* cut short */
        {"\xff", "invalid UTF-8 (byte 0xFF)", 1},
        {"\xef\xbf\xbf", "non-character U+FFFF", 1},
    };
    char why[96];
    size_t i, column = 0;
    (void)state;
    /* tab, é, € (3 bytes), 😀 (4 bytes), U+10FFFF's neighbour U+10FFFD */
    assert_true(
        datafile_text_check("a\tb \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"
                            " \xf4\x8f\xbf\xbd",
                            20, &column, why, sizeof why));
    for (i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (datafile_text_check(bad[i].text, strlen(bad[i].text), &column, why,
                                sizeof why))
            fail_msg("case %zu accepted", i);
        assert_string_equal(why, bad[i].why);
        assert_int_equal(column, bad[i].column);
    }
}

/* Messages show what is not text as \xNN and cut at a character. */
static void test_datafile_text_quote(void **state)
{
    char buf[8];
    char big[64];
    (void)state;
    datafile_text_quote("a\x1b[2Jb", big, sizeof big);
    assert_string_equal(big, "a\\x1B[2Jb");
    datafile_text_quote("\xff\xc2\x9b\xc3\xa9", big, sizeof big);
    assert_string_equal(big, "\\xFF\\xC2\\x9B\xc3\xa9");
    datafile_text_quote("abcdefg", buf, sizeof buf); /* 7 + NUL: fits */
    assert_string_equal(buf, "abcdefg");
    datafile_text_quote("abcdefgh", buf, sizeof buf);
    assert_string_equal(buf, "abcd...");
    datafile_text_quote("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", buf,
                        sizeof buf); /* 5 x é, 2 bytes each */
    assert_string_equal(buf, "\xc3\xa9\xc3\xa9...");
    datafile_text_quote("a\x1b", buf, 4); /* "a\x1B" needs 6: "..." fits */
    assert_string_equal(buf, "...");
    datafile_text_quote("a\x1b", buf, 3);
    assert_string_equal(buf, "");
}

/*
 * Issue 34 item 4: text for the workbook's XML. A Latin-1 "März" (0xE4:
 * a lead byte without its continuation, so not UTF-8) shows as M\xE4rz;
 * XML 1.0's Char production forbids C0 controls but tab, newline and
 * carriage return, and U+FFFE/U+FFFF; the text rule also escapes
 * carriage return, DEL and C1 (as messages do). Newlines stay: a cell
 * holds several lines. The length returned is the whole escaped text's,
 * as snprintf's, so a first call with size 0 sizes the buffer; an
 * unchanged length means nothing was escaped.
 */
static void test_datafile_text_xml(void **state)
{
    char buf[64], small[6];
    const char *ok = "a\tb\nc \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
    (void)state;
    assert_int_equal(datafile_text_xml(ok, NULL, 0), strlen(ok));
    assert_int_equal(datafile_text_xml(ok, buf, sizeof buf), strlen(ok));
    assert_string_equal(buf, ok);
    /* "M\xE4rz": 1 + 4 + 2 bytes */
    assert_int_equal(datafile_text_xml("M\xe4rz", NULL, 0), 7);
    assert_int_equal(datafile_text_xml("M\xe4rz", buf, sizeof buf), 7);
    assert_string_equal(buf, "M\\xE4rz");
    datafile_text_xml("\x01\x1b[1m\r\x7f\xc2\x9b\xef\xbf\xbe.", buf,
                      sizeof buf);
    assert_string_equal(buf, "\\x01\\x1B[1m\\x0D\\x7F\\xC2\\x9B"
                             "\\xEF\\xBF\\xBE.");
    /* cut where it does not fit, NUL-terminated, the whole length said */
    assert_int_equal(datafile_text_xml("M\xe4rz", small, sizeof small), 7);
    assert_string_equal(small, "M\\xE4");
    /* every byte escaped: 4 bytes each, the bound the header gives */
    assert_int_equal(datafile_text_xml("\xff\xfe", NULL, 0), 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datafile_text_check),
        cmocka_unit_test(test_datafile_text_quote),
        cmocka_unit_test(test_datafile_text_xml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
