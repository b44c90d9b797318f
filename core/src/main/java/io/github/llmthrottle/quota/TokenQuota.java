package io.github.llmthrottle.quota;

import io.github.llmthrottle.limit.ModelLimits;
import org.jspecify.annotations.Nullable;

/**
 * Token quotas over long windows: input plus output tokens per calendar day and per
 * calendar month, in UTC ({@link QuotaWindow}). A {@code null} value means no quota for
 * that window.
 *
 * @param tokensPerDay tokens per day, or {@code null}
 * @param tokensPerMonth tokens per month, or {@code null}
 */
public record TokenQuota(@Nullable Long tokensPerDay, @Nullable Long tokensPerMonth) {

    /** No quota in any window. */
    public static final TokenQuota NONE = new TokenQuota(null, null);

    public TokenQuota {
        ModelLimits.requirePositive("tokensPerDay", tokensPerDay);
        ModelLimits.requirePositive("tokensPerMonth", tokensPerMonth);
    }

    /**
     * The quota of one window.
     * @param window the window
     * @return its quota, or {@code null} for none
     */
    public @Nullable Long limit(QuotaWindow window) {
        return switch (window) {
            case DAY -> this.tokensPerDay;
            case MONTH -> this.tokensPerMonth;
        };
    }

    /**
     * Whether no window has a quota.
     * @return {@code true} for no quota at all
     */
    public boolean isEmpty() {
        return this.tokensPerDay == null && this.tokensPerMonth == null;
    }

    /**
     * This quota with every value that {@code override} sets replacing ours.
     * @param override the override
     * @return the merged quota
     */
    public TokenQuota overriddenBy(TokenQuota override) {
        return new TokenQuota((override.tokensPerDay != null) ? override.tokensPerDay : this.tokensPerDay,
                (override.tokensPerMonth != null) ? override.tokensPerMonth : this.tokensPerMonth);
    }

}
