package io.github.llmthrottle.actuate;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP face of {@link LlmThrottleEndpoint}'s per-model operations: 404 with a message
 * for an unknown client or model, 400 with a message naming the field for an invalid
 * limit.
 */
@EndpointWebExtension(endpoint = LlmThrottleEndpoint.class)
public class LlmThrottleEndpointWebExtension {

    private final LlmThrottleEndpoint endpoint;

    /**
     * Creates the web extension.
     * @param endpoint the endpoint
     */
    public LlmThrottleEndpointWebExtension(LlmThrottleEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * One client and model, or 404; the model's name is every remaining path segment
     * ({@code /actuator/llmthrottle/openrouter/meta-llama/llama-3.3-70b}).
     * @param client the client name
     * @param model the segments of the model name
     * @return its state, or a 404 response
     */
    @ReadOperation
    public WebEndpointResponse<Object> model(@Selector String client,
            @Selector(match = Match.ALL_REMAINING) String[] model) {
        String name = LlmThrottleEndpoint.modelName(model);
        return respond(this.endpoint.model(client, name), client, name);
    }

    /**
     * Changes the limits of one client and model, or answers 404 or 400.
     * @param client the client name
     * @param model the segments of the model name
     * @param requestsPerMinute the new request limit, or {@code null} to keep it
     * @param inputTokensPerMinute the new input token limit, or {@code null} to keep it
     * @param outputTokensPerMinute the new output token limit, or {@code null} to keep it
     * @param maxConcurrency the new concurrency ceiling, or {@code null} to keep it
     * @param reset whether to start from the configured limits rather than the current
     * ones
     * @return the new state, or a 404 or 400 response
     */
    @WriteOperation
    public WebEndpointResponse<Object> updateLimits(@Selector String client,
            @Selector(match = Match.ALL_REMAINING) String[] model, @Nullable Long requestsPerMinute,
            @Nullable Long inputTokensPerMinute, @Nullable Long outputTokensPerMinute, @Nullable Integer maxConcurrency,
            @Nullable Boolean reset) {
        String name = LlmThrottleEndpoint.modelName(model);
        try {
            return respond(this.endpoint.updateLimits(client, name, requestsPerMinute, inputTokensPerMinute,
                    outputTokensPerMinute, maxConcurrency, reset), client, name);
        }
        catch (InvalidEndpointRequestException ex) {
            return new WebEndpointResponse<>(error(ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
        }
    }

    private static WebEndpointResponse<Object> respond(@Nullable Object state, String client, String model) {
        if (state == null) {
            return new WebEndpointResponse<>(error("No model '" + model + "' of client '" + client + "' is known"),
                    WebEndpointResponse.STATUS_NOT_FOUND);
        }
        return new WebEndpointResponse<>(state, WebEndpointResponse.STATUS_OK);
    }

    private static Map<String, String> error(@Nullable String message) {
        return OperationResponseBody.of(Map.of("message", String.valueOf(message)));
    }

}
