package io.github.llmthrottle.budget;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;

import io.github.llmthrottle.provider.Usage;

/**
 * What a model's tokens cost, per million tokens, in the configured currency
 * ({@code models.MODEL.price.*}). Input tokens read from the prompt cache cost
 * {@code cacheRead}, those written to it {@code cacheWrite}, the rest of the prompt
 * {@code input}.
 *
 * @param input the price of a million uncached input tokens
 * @param output the price of a million output tokens
 * @param cacheWrite the price of a million input tokens written to the prompt cache
 * @param cacheRead the price of a million input tokens read from the prompt cache
 */
public record ModelPrice(BigDecimal input, BigDecimal output, BigDecimal cacheWrite, BigDecimal cacheRead) {

    private static final BigDecimal MILLION = BigDecimal.valueOf(1_000_000);

    public ModelPrice {
        requireNonNegative("input", input);
        requireNonNegative("output", output);
        requireNonNegative("cacheWrite", cacheWrite);
        requireNonNegative("cacheRead", cacheRead);
    }

    /**
     * A price whose prompt-cache tokens cost as much as other input tokens.
     * @param input the price of a million input tokens
     * @param output the price of a million output tokens
     */
    public ModelPrice(BigDecimal input, BigDecimal output) {
        this(input, output, input, input);
    }

    /**
     * What the tokens of a settled call cost.
     * @param usage the tokens the provider counted
     * @return the cost in the currency
     */
    public BigDecimal cost(Usage usage) {
        return micros(usage).divide(MILLION);
    }

    /**
     * What a call of that many tokens is estimated to cost, in millionths of the currency
     * rounded up: the unit budgets count in.
     * @param inputTokens the estimated input tokens
     * @param outputTokens the output tokens it may generate ({@code max_tokens})
     * @return the estimated cost in millionths of the currency
     */
    public long estimateMicros(long inputTokens, long outputTokens) {
        return ceil(this.input.multiply(BigDecimal.valueOf(Math.max(0, inputTokens)))
            .add(this.output.multiply(BigDecimal.valueOf(Math.max(0, outputTokens)))));
    }

    /**
     * What the tokens of a settled call cost, in millionths of the currency rounded up.
     * @param usage the tokens the provider counted
     * @return the cost in millionths of the currency
     */
    public long costMicros(Usage usage) {
        return ceil(micros(usage));
    }

    private BigDecimal micros(Usage usage) {
        long read = Math.max(0, usage.cacheReadTokens());
        long write = Math.max(0, usage.cacheWriteTokens());
        long uncached = Math.max(0, usage.promptTokens() - read - write);
        // a price per million tokens is a price per token in millionths
        return this.input.multiply(BigDecimal.valueOf(uncached))
            .add(this.cacheWrite.multiply(BigDecimal.valueOf(write)))
            .add(this.cacheRead.multiply(BigDecimal.valueOf(read)))
            .add(this.output.multiply(BigDecimal.valueOf(Math.max(0, usage.outputTokens()))));
    }

    private static long ceil(BigDecimal micros) {
        BigDecimal rounded = micros.setScale(0, RoundingMode.CEILING);
        return (rounded.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0) ? Long.MAX_VALUE : rounded.longValueExact();
    }

    private static void requireNonNegative(String name, BigDecimal price) {
        Objects.requireNonNull(price, name);
        if (price.signum() < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + price);
        }
    }

}
