package io.github.llmthrottle.autoconfigure;

/**
 * The adaptive concurrency limit of every model ({@code llm.throttle.concurrency.*}):
 * each model's limit starts at {@code initial}, grows by one with each call that succeeds
 * while at least half of it is in use, and shrinks by 10 % with each call answered 429 or
 * 529, or timed out, up to {@code max} (or the model's own {@code max-concurrency}).
 */
public class ConcurrencyProperties {

    /**
     * Concurrency limit every model starts with, before successes grow it and 429s, 529s
     * and timeouts shrink it.
     */
    private int initial = 50;

    /**
     * Ceiling of the adaptive concurrency limit of every model that sets no
     * max-concurrency of its own.
     */
    private int max = 1000;

    public int getInitial() {
        return this.initial;
    }

    public void setInitial(int initial) {
        this.initial = initial;
    }

    public int getMax() {
        return this.max;
    }

    public void setMax(int max) {
        this.max = max;
    }

}
