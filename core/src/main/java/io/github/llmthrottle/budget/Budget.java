package io.github.llmthrottle.budget;

import java.math.BigDecimal;
import java.math.RoundingMode;

import io.github.llmthrottle.quota.QuotaWindow;
import org.jspecify.annotations.Nullable;

/**
 * Budgets in money over long windows ({@code budget-per-day}, {@code budget-per-month}):
 * what the calls of a model, a client or a tenant may cost per calendar day and per
 * calendar month in UTC ({@link QuotaWindow}), in the configured currency. A {@code null}
 * value means no budget for that window.
 *
 * @param perDay the budget per day, or {@code null}
 * @param perMonth the budget per month, or {@code null}
 */
public record Budget(@Nullable BigDecimal perDay, @Nullable BigDecimal perMonth) {

    /** No budget in any window. */
    public static final Budget NONE = new Budget(null, null);

    public Budget {
        requirePositive("perDay", perDay);
        requirePositive("perMonth", perMonth);
    }

    /**
     * The budget of one window.
     * @param window the window
     * @return its budget, or {@code null} for none
     */
    public @Nullable BigDecimal limit(QuotaWindow window) {
        return switch (window) {
            case DAY -> this.perDay;
            case MONTH -> this.perMonth;
        };
    }

    /**
     * The budget of one window in millionths of the currency (rounded down).
     * @param window the window
     * @return its budget, or {@code null} for none
     */
    @Nullable Long limitMicros(QuotaWindow window) {
        BigDecimal limit = limit(window);
        return (limit != null) ? toMicros(limit) : null;
    }

    /**
     * Whether no window has a budget.
     * @return {@code true} for no budget at all
     */
    public boolean isEmpty() {
        return this.perDay == null && this.perMonth == null;
    }

    /**
     * This budget with every value that {@code override} sets replacing ours.
     * @param override the override
     * @return the merged budget
     */
    public Budget overriddenBy(Budget override) {
        return new Budget((override.perDay != null) ? override.perDay : this.perDay,
                (override.perMonth != null) ? override.perMonth : this.perMonth);
    }

    static long toMicros(BigDecimal amount) {
        BigDecimal micros = amount.movePointRight(6).setScale(0, RoundingMode.FLOOR);
        return (micros.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0) ? Long.MAX_VALUE : micros.longValueExact();
    }

    static BigDecimal fromMicros(long micros) {
        BigDecimal amount = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        return (amount.scale() < 0) ? amount.setScale(0) : amount;
    }

    private static void requirePositive(String name, @Nullable BigDecimal amount) {
        if (amount != null && amount.signum() <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + amount);
        }
    }

}
