package io.github.llmthrottle.actuate;

/**
 * What the {@code llmThrottle} health indicator says about one client and model, most
 * serious first. None of them turns health {@code DOWN}: throttling is normal operation.
 */
public enum ModelHealthState {

    /**
     * The provider rejected the API key (401 or 403) and has not accepted a call since.
     */
    CREDENTIALS_REJECTED,

    /**
     * The model's circuit is open (or half-open): calls fail fast or only probes go
     * through.
     */
    CIRCUIT_OPEN,

    /**
     * The token quota of the day or month of the model, or of its client, is exhausted:
     * its calls fail fast (or go to a fallback) until the window resets.
     */
    QUOTA_EXHAUSTED,

    /**
     * The provider answered 429 recently, or the model is paused until the provider's
     * time.
     */
    PROVIDER_THROTTLING,

    /** The provider answered 529 (or an overloaded 503) recently. */
    PROVIDER_OVERLOADED,

    /** Calls are waiting for the local limits (buckets or concurrency). */
    QUEUEING,

    /** Calls go through without waiting. */
    OK

}
