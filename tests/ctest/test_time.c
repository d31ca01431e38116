/* The store's own time arithmetic through the C API: ISO-8601 periods parsed and formatted
 * (fixed ones in milliseconds, calendar ones in months, never mixed), timelines that follow
 * the calendar, and resolutions inferred from timestamps. */
#include "check.h"

#define MINUTE 60000LL
#define DAY (24 * HOUR)

/* Unix milliseconds of a UTC date and time (proleptic Gregorian calendar). */
static int64_t utc_ms(int y, int m, int d, int hh) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    return days * DAY + hh * HOUR;
}

/* text parses to want, formats as canon, and canon parses back to want. */
static void round_trip(const char *text, tsstore_period want, const char *canon) {
    tsstore_period p = {-1, -1, 0}, again = {-1, -1, 0};
    CHECK(tsstore_period_parse(text, &p));
    if (!same_period(p, want))
        fprintf(stderr, "%s parsed as {%lld, unit %d}\n", text, (long long)p.value, (int)p.unit);
    ASSERT(same_period(p, want));
    ASSERT(formats_as(p, canon));
    CHECK(tsstore_period_parse(canon, &again));
    ASSERT(same_period(again, want));
}

static void test_periods(void) {
    round_trip("PT1H", millis(HOUR), "PT1H");
    round_trip("PT15M", millis(15 * MINUTE), "PT15M");
    round_trip("PT90M", millis(90 * MINUTE), "PT1H30M");
    round_trip("PT1.5S", millis(1500), "PT1.5S");
    round_trip("P1D", millis(DAY), "P1D");
    round_trip("PT24H", millis(DAY), "P1D");
    round_trip("P1M", months(1), "P1M");
    round_trip("P3M", months(3), "P3M");
    round_trip("P1Y", months(12), "P1Y");
    round_trip("P1Y2M", months(14), "P14M");
    tsstore_period p = {7, 7, 0};
    tsstore_period before = p;
    REFUSE(tsstore_period_parse("P1MT1H", &p), TSSTORE_E_INVALID_PARAMETER, "P1MT1H"); /* months and hours */
    ASSERT(same_period(p, before));                                                     /* left as it was */
    REFUSE(tsstore_period_parse("P1Y1D", &p), TSSTORE_E_INVALID_PARAMETER, "P1Y1D");
    REFUSE(tsstore_period_parse("", &p), TSSTORE_E_INVALID_PARAMETER, "text");
    REFUSE(tsstore_period_parse("PT", &p), TSSTORE_E_INVALID_PARAMETER, "PT");
    REFUSE(tsstore_period_parse("P-1D", &p), TSSTORE_E_INVALID_PARAMETER, "P-1D");
    tsstore_period none = {0, TSSTORE_PERIOD_NONE, 0};
    ASSERT(formats_as(none, ""));
    char buf[2];
    size_t needed = 0;
    tsstore_period year = months(12);
    EXPECT(tsstore_period_format(&year, buf, sizeof buf, &needed), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(needed == 4);
    tsstore_period bad = millis(0);
    EXPECT(tsstore_period_format(&bad, buf, sizeof buf, &needed), TSSTORE_E_INVALID_PARAMETER);
}

static void test_timelines(void) {
    int64_t t[6];
    /* Monthly from 31 January 2024: each month's end where the day does not exist. */
    tsstore_period month = months(1);
    int64_t jan31 = utc_ms(2024, 1, 31, 0);
    CHECK(tsstore_timeline(jan31, &month, 0, 6, t));
    ASSERT(t[0] == jan31);
    ASSERT(t[1] == utc_ms(2024, 2, 29, 0)); /* a leap year */
    ASSERT(t[2] == utc_ms(2024, 3, 31, 0)); /* from the start, not from 29 February */
    ASSERT(t[3] == utc_ms(2024, 4, 30, 0));
    ASSERT(t[4] == utc_ms(2024, 5, 31, 0));
    ASSERT(t[5] == utc_ms(2024, 6, 30, 0));
    /* A later part of the same timeline, and one before its start. */
    CHECK(tsstore_timeline(jan31, &month, 13, 1, t));
    ASSERT(t[0] == utc_ms(2025, 2, 28, 0));
    CHECK(tsstore_timeline(jan31, &month, -2, 2, t));
    ASSERT(t[0] == utc_ms(2023, 11, 30, 0) && t[1] == utc_ms(2023, 12, 31, 0));
    /* Yearly from 29 February. */
    tsstore_period year = months(12);
    CHECK(tsstore_timeline(utc_ms(2024, 2, 29, 6), &year, 0, 3, t));
    ASSERT(t[1] == utc_ms(2025, 2, 28, 6) && t[2] == utc_ms(2026, 2, 28, 6));
    /* Fixed steps. */
    tsstore_period hour = millis(HOUR);
    CHECK(tsstore_timeline(T0, &hour, 2, 3, t));
    ASSERT(t[0] == T0 + 2 * HOUR && t[1] == T0 + 3 * HOUR && t[2] == T0 + 4 * HOUR);
    CHECK(tsstore_timeline(T0, &hour, 0, 0, NULL)); /* nothing asked, nothing written */
    tsstore_period none = {0, TSSTORE_PERIOD_NONE, 0};
    REFUSE(tsstore_timeline(T0, &none, 0, 3, t), TSSTORE_E_INVALID_PARAMETER, "step");
}

static void test_inference(void) {
    int64_t t[5];
    int32_t regular = -1;
    tsstore_period res = {-1, -1, 0};
    /* Hourly. */
    for (int i = 0; i < 5; i++) t[i] = T0 + i * HOUR;
    CHECK(tsstore_infer_resolution(t, 5, &regular, &res));
    ASSERT(regular == 1 && same_period(res, millis(HOUR)));
    /* Monthly: gaps of 31, 29, 31 and 30 days. */
    for (int i = 0; i < 5; i++) t[i] = utc_ms(2024, 1 + i, 1, 0);
    CHECK(tsstore_infer_resolution(t, 5, &regular, &res));
    ASSERT(regular == 1 && same_period(res, months(1)));
    /* Month ends, clamped as a monthly timeline from 31 January is. */
    int64_t ends[4] = {utc_ms(2024, 1, 31, 0), utc_ms(2024, 2, 29, 0), utc_ms(2024, 3, 31, 0), utc_ms(2024, 4, 30, 0)};
    CHECK(tsstore_infer_resolution(ends, 4, &regular, &res));
    ASSERT(regular == 1 && same_period(res, months(1)));
    /* Quarterly and yearly. */
    for (int i = 0; i < 4; i++) t[i] = utc_ms(2024, 1 + 3 * i, 1, 0);
    CHECK(tsstore_infer_resolution(t, 4, &regular, &res));
    ASSERT(regular == 1 && same_period(res, months(3)));
    for (int i = 0; i < 4; i++) t[i] = utc_ms(2023 + i, 7, 1, 0); /* 366 days, then 365 */
    CHECK(tsstore_infer_resolution(t, 4, &regular, &res));
    ASSERT(regular == 1 && same_period(res, months(12)));
    /* Where a fixed step fits as well (1 July 2020, 2021, 2022: 365 days apart each), the
     * header does not say which wins; either is a regular answer. */
    for (int i = 0; i < 3; i++) t[i] = utc_ms(2020 + i, 7, 1, 0);
    CHECK(tsstore_infer_resolution(t, 3, &regular, &res));
    ASSERT(regular == 1 && (same_period(res, months(12)) || same_period(res, millis(365 * DAY))));
    /* Irregular. */
    int64_t odd[4] = {T0, T0 + HOUR, T0 + 3 * HOUR, T0 + 4 * HOUR};
    CHECK(tsstore_infer_resolution(odd, 4, &regular, &res));
    ASSERT(regular == 0 && res.unit == TSSTORE_PERIOD_NONE);
    int64_t almost[3] = {utc_ms(2024, 1, 1, 0), utc_ms(2024, 2, 1, 0), utc_ms(2024, 3, 2, 0)};
    CHECK(tsstore_infer_resolution(almost, 3, &regular, &res));
    ASSERT(regular == 0);
    /* Not a timeline: too few, or not increasing. */
    REFUSE(tsstore_infer_resolution(t, 1, &regular, &res), TSSTORE_E_INVALID_PARAMETER, "two");
    int64_t back[3] = {T0, T0 + HOUR, T0};
    REFUSE(tsstore_infer_resolution(back, 3, &regular, &res), TSSTORE_E_INVALID_PARAMETER, "timestamps_ms[2]");
}

int main(void) {
    test_periods();
    test_timelines();
    test_inference();
    return finish("test_time");
}
