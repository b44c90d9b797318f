package io.github.llmthrottle.autoconfigure;

import java.math.BigDecimal;

import org.jspecify.annotations.Nullable;

/**
 * What a model's tokens cost, per million tokens, in llm.throttle.currency: settled usage
 * becomes cost (the llm.cost counter, the endpoint's totals) and the model's calls count
 * against budgets in money. Input and output must both be set when any price is.
 */
public class ModelPriceProperties {

    /**
     * Price of a million input tokens (not read from nor written to the prompt cache).
     */
    private @Nullable BigDecimal input;

    /**
     * Price of a million output tokens.
     */
    private @Nullable BigDecimal output;

    /**
     * Price of a million input tokens written to the prompt cache; the input price when
     * unset.
     */
    private @Nullable BigDecimal cacheWrite;

    /**
     * Price of a million input tokens read from the prompt cache; the input price when
     * unset.
     */
    private @Nullable BigDecimal cacheRead;

    public @Nullable BigDecimal getInput() {
        return this.input;
    }

    public void setInput(@Nullable BigDecimal input) {
        this.input = input;
    }

    public @Nullable BigDecimal getOutput() {
        return this.output;
    }

    public void setOutput(@Nullable BigDecimal output) {
        this.output = output;
    }

    public @Nullable BigDecimal getCacheWrite() {
        return this.cacheWrite;
    }

    public void setCacheWrite(@Nullable BigDecimal cacheWrite) {
        this.cacheWrite = cacheWrite;
    }

    public @Nullable BigDecimal getCacheRead() {
        return this.cacheRead;
    }

    public void setCacheRead(@Nullable BigDecimal cacheRead) {
        this.cacheRead = cacheRead;
    }

}
