package io.github.llmthrottle;

/**
 * Why a call was refused without (another) attempt at the provider: the {@code reason}
 * tag of the {@code llm.rejections} metric, and
 * {@link LlmThrottleException#getRejectionReason()}.
 */
public enum RejectionReason {

    /** The admission queue was full. */
    QUEUE_FULL("queue_full"),

    /** The call could not be admitted within its max-wait (or could never fit). */
    MAX_WAIT("max_wait"),

    /**
     * The tenant's own limits could not admit it: its per-minute limits, or its token
     * quota of the day or month is used up.
     */
    TENANT_QUOTA("tenant_quota"),

    /** The token quota of the day or month of its model or client is used up. */
    TOKEN_QUOTA("token_quota"),

    /** The model's circuit was open. */
    CIRCUIT_OPEN("circuit_open"),

    /** The server asked for a wait above max-retry-after. */
    RETRY_AFTER_TOO_LONG("retry_after_too_long"),

    /**
     * The request does not fit the model's context window
     * ({@link ContextWindowExceededException}); it was never sent.
     */
    CONTEXT_WINDOW("context_window"),

    /**
     * The estimated cost of the call no longer fits a budget in money of its model,
     * client or tenant ({@link BudgetExceededException}); it was never sent.
     */
    BUDGET("budget");

    private final String tag;

    RejectionReason(String tag) {
        this.tag = tag;
    }

    /**
     * The metric tag value.
     * @return the tag
     */
    public String tag() {
        return this.tag;
    }

}
