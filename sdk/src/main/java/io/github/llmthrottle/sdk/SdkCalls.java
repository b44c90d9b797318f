package io.github.llmthrottle.sdk;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.github.llmthrottle.ThrottleContext;

import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriUtils;

/**
 * What the SDK adapters share whatever the SDK's types: an asynchronous request run on an
 * executor with the caller's {@code @Throttled} context, how a request asks for a stream
 * of events, and how a deployment's URI maps onto an SDK request's base URL and query
 * parameters.
 */
final class SdkCalls {

    private static final String EVENT_STREAM = "text/event-stream";

    private SdkCalls() {
    }

    /**
     * Runs a blocking request on the executor, with the calling thread's
     * {@link ThrottleContext}: the wait for admission and between retries never blocks
     * the caller.
     * @param <T> the response type
     * @param executor where the request waits and is sent
     * @param request the blocking request
     * @return its response, or its failure as the future's
     */
    static <T> CompletableFuture<T> async(Executor executor, Supplier<T> request) {
        ThrottleContext context = ThrottleContext.current();
        return CompletableFuture.supplyAsync(() -> {
            try (ThrottleContext.Scope scope = (context != null) ? ThrottleContext.open(context) : () -> {
            }) {
                return request.get();
            }
        }, executor).handle((response, failure) -> {
            if (failure == null) {
                return response;
            }
            throw (failure instanceof CompletionException completion) ? completion : new CompletionException(failure);
        });
    }

    /**
     * Whether a request's {@code Accept} header values ask for a stream of events.
     * @param accepts the values
     * @return whether one of them is {@code text/event-stream}
     */
    static boolean acceptsEventStream(List<String> accepts) {
        return accepts.stream().anyMatch((accept) -> accept.contains(EVENT_STREAM));
    }

    /**
     * The base URL an SDK request is rebuilt on to go to {@code uri}: its scheme,
     * authority and path as they are encoded, without the query. The SDKs append the
     * request's path segments (none, once rebuilt) and its query parameters to it.
     * @param uri the full URI the request goes to
     * @return the base URL
     */
    static String baseUrl(URI uri) {
        String path = (uri.getRawPath() != null) ? uri.getRawPath() : "";
        return uri.getScheme() + "://" + uri.getRawAuthority() + path;
    }

    /**
     * The query parameters of {@code uri}, decoded, in their order (a name given twice
     * has both values), as an SDK request holds them before it encodes them again.
     * @param uri the full URI the request goes to
     * @return the parameters by name, empty when it has no query
     */
    static Map<String, List<String>> queryParameters(URI uri) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        UriComponentsBuilder.fromUri(uri)
            .build()
            .getQueryParams()
            .forEach((name, values) -> parameters.put(UriUtils.decode(name, StandardCharsets.UTF_8),
                    values.stream()
                        .map((value) -> (value != null) ? UriUtils.decode(value, StandardCharsets.UTF_8) : "")
                        .toList()));
        return parameters;
    }

}
