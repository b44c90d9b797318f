package io.github.llmthrottle.autoconfigure;

import java.time.Duration;
import java.util.function.Predicate;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.limit.ModelLimits;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.PropertyMapper.Source.Adapter;

/**
 * The rules a property value must meet, for {@link ThrottleSettingsMapper} and
 * {@link ClientSettingsMapper}: each returns its value, so that a mapping line can check
 * it on the way, and a value that breaks one fails with an
 * {@link InvalidThrottleConfigurationException} naming the property (relative to
 * {@value #PREFIX}) and what would be valid. Public for the auto-configurations of the
 * integration modules (the Redis store's), which check their properties by the same
 * rules; not for applications.
 */
public final class SettingsValidation {

    /** The prefix of every property a rule names. */
    static final String PREFIX = "llm.throttle.";

    private static final String NO_LIMIT = "Use a positive number, or remove the property for no local limit.";

    private SettingsValidation() {
    }

    /**
     * A duration above zero.
     * @param property the property, relative to {@value #PREFIX}
     * @return the rule
     */
    public static Rule<Duration> positiveDuration(String property) {
        return (value) -> check(property, value, (duration) -> !duration.isNegative() && !duration.isZero(),
                "must be positive", "Use a positive duration such as 500ms or 10s.");
    }

    /**
     * A duration of zero or more.
     * @param property the property, relative to {@value #PREFIX}
     * @return the rule
     */
    public static Rule<Duration> nonNegativeDuration(String property) {
        return (value) -> check(property, value, (duration) -> !duration.isNegative(), "must not be negative",
                "Use a duration such as 0s, 500ms or 30s.");
    }

    static <N extends Number> Rule<N> positiveNumber(String property, String action) {
        return (value) -> check(property, value, (number) -> number.longValue() > 0, "must be positive", action);
    }

    static Rule<Integer> atLeastOne(String property, String action) {
        return (value) -> check(property, value, (number) -> number >= 1, "must be at least 1", action);
    }

    static <N extends Number> Rule<N> nonNegativeLong(String property, String action) {
        return (value) -> check(property, value, (number) -> number.longValue() >= 0, "must not be negative", action);
    }

    static Rule<Integer> nonNegativeNumber(String property, String action) {
        return (value) -> check(property, value, (number) -> number >= 0, "must not be negative", action);
    }

    static Rule<Double> multiplier(String property) {
        return (value) -> check(property, value, (number) -> number >= 1.0 && !number.isInfinite(),
                "must be at least 1.0",
                "Use 1.0 for a constant delay, or for example 2.0 to double it with each retry.");
    }

    static Rule<String> notBlank(String property) {
        return (value) -> check(property, value, (text) -> !text.isBlank(), "must not be blank",
                "Name a model, or remove the property.");
    }

    /**
     * A limit per day or month, or a concurrency ceiling: unset (no local limit), or
     * positive and at most {@link ModelLimits#MAX_LIMIT}.
     */
    static <N extends Number> @Nullable N limit(String property, @Nullable N value) {
        return bounded(property, value, ModelLimits.MAX_LIMIT);
    }

    /**
     * A limit per minute: unset (no local limit), or positive and at most
     * {@link ModelLimits#MAX_PER_MINUTE}.
     */
    static <N extends Number> @Nullable N perMinute(String property, @Nullable N value) {
        return bounded(property, value, ModelLimits.MAX_PER_MINUTE);
    }

    static <N extends Number> @Nullable N bounded(String property, @Nullable N value, long max) {
        if (value == null) {
            return null;
        }
        return check(property, SettingsValidation.<N>positiveNumber(property, NO_LIMIT).adapt(value),
                (number) -> number.longValue() <= max, "must be at most " + max,
                "Use the provider's limit, which is far lower, or remove the property for no local limit.");
    }

    static <T> T check(String property, T value, Predicate<T> valid, String reason, String action) {
        if (!valid.test(value)) {
            throw invalid(property, value, reason, action);
        }
        return value;
    }

    /** Refuses a property that is set where it does not apply. */
    static void unset(String property, @Nullable Object value, String reason, String action) {
        if (value != null) {
            throw invalid(property, value, reason, action);
        }
    }

    static InvalidThrottleConfigurationException invalid(String property, @Nullable Object value, String reason,
            String action) {
        return new InvalidThrottleConfigurationException(PREFIX + property,
                (value != null) ? String.valueOf(value) : null, reason, action);
    }

    /**
     * A check that returns the value it accepts, so never {@code null}: usable wherever
     * {@link PropertyMapper} takes an adapter, and on its own.
     *
     * @param <T> the type of the value
     */
    @FunctionalInterface
    public interface Rule<T> extends Adapter<T, T> {

        @Override
        T adapt(T value);

    }

}
