package io.github.llmthrottle;

/**
 * The provider refused a {@link Throttled} invocation's request for a reason listed in
 * its {@link Throttled#fallbackOn()}: what the router reports when it moves on to the
 * next model, and what the fallback method receives when every model refused. The
 * exception the method threw (the HTTP library's, with the provider's body) is its cause.
 */
public class ProviderRefusedException extends LlmThrottleException {

    private final FallbackOn refusal;

    /**
     * Creates the exception.
     * @param client the client the invocation was routed to
     * @param model the model the invocation was routed to
     * @param refusal why the provider refused the request
     * @param cause what the invocation threw
     */
    public ProviderRefusedException(String client, String model, FallbackOn refusal, Throwable cause) {
        super("The provider refused the request to " + describe(client, model) + " (" + refusal + ")", client, model,
                null, cause);
        this.refusal = refusal;
    }

    /**
     * Why the provider refused the request.
     * @return the refusal
     */
    public FallbackOn getRefusal() {
        return this.refusal;
    }

}
