package io.github.llmthrottle.quota;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;

/**
 * The long windows a token quota counts over: calendar days and calendar months in UTC. A
 * window starts at 00:00 UTC of its day (of the first day of its month) and the next one
 * starts at the next such boundary, where the count starts again from zero.
 */
public enum QuotaWindow {

    /** A calendar day in UTC, from 00:00 to 00:00. */
    DAY("day"),

    /**
     * A calendar month in UTC, from 00:00 on its first day to 00:00 on the next month's.
     */
    MONTH("month");

    private final String tag;

    QuotaWindow(String tag) {
        this.tag = tag;
    }

    /**
     * The name of the window in keys, the endpoint and messages.
     * @return {@code day} or {@code month}
     */
    public String tag() {
        return this.tag;
    }

    /**
     * The window {@code now} falls in.
     * @param now the instant
     * @return the window's period
     */
    public Period periodOf(Instant now) {
        LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
        return switch (this) {
            case DAY -> new Period(this, today.toString(), today.plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC));
            case MONTH -> new Period(this, today.toString().substring(0, 7),
                    today.with(TemporalAdjusters.firstDayOfNextMonth()).atStartOfDay().toInstant(ZoneOffset.UTC));
        };
    }

    /**
     * One window of time: a day or a month.
     *
     * @param window the kind of window
     * @param id the window's name, {@code 2026-11-30} for a day, {@code 2026-11} for a
     * month
     * @param end when it ends and the next one starts (its reset)
     */
    public record Period(QuotaWindow window, String id, Instant end) {
    }

}
