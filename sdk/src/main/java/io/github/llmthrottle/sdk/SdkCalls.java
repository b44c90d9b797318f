package io.github.llmthrottle.sdk;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient;

import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriUtils;

/**
 * What the SDK adapters share whatever the SDK's types: the configured client by name,
 * the caller of a request, an asynchronous request run on an executor, how a request asks
 * for a stream of events, and how a deployment's URI maps onto an SDK request's base URL
 * and query parameters.
 */
final class SdkCalls {

    private static final String EVENT_STREAM = "text/event-stream";

    private static final AtomicInteger THREADS = new AtomicInteger();

    private SdkCalls() {
    }

    /**
     * The configured client an SDK hook throttles with.
     * @param registry the configured clients
     * @param name the name of one of them
     * @return the client
     * @throws IllegalArgumentException when no client is configured under that name
     */
    static ThrottledClient client(LlmThrottleRegistry registry, String name) {
        ThrottledClient client = registry.getClient(name);
        if (client == null) {
            throw new IllegalArgumentException(
                    "No llm-throttle client '" + name + "' is configured (llm.throttle.clients." + name
                            + "); configured: " + registry.getClients().keySet());
        }
        return client;
    }

    /**
     * The caller of a request sent through {@code client} from this thread: a
     * {@code @Throttled} invocation of that client, if any.
     * @param client the client the request goes through
     * @return the caller
     */
    static Caller caller(ThrottledClient client) {
        return Caller.of(ThrottleContext.current(), client.getName());
    }

    /**
     * A cached pool of daemon threads, for the asynchronous requests of a hook given no
     * executor: created as needed, gone after a minute idle.
     * @return a new pool
     */
    static Executor daemonThreads() {
        return Executors.newCachedThreadPool((task) -> {
            Thread thread = new Thread(task, "llm-throttle-sdk-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
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
