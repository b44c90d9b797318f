package io.github.llmthrottle.test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import org.jspecify.annotations.Nullable;

/**
 * Writes the simulator's responses: their headers (request id, rate limit levels, the
 * configured overrides and a fault's), complete JSON bodies and errors in each dialect. A
 * call's time in flight ends before the last bytes of its response go out, so that a
 * client sending its next call as soon as it has the answer never finds this one still in
 * flight.
 */
final class SimulatorResponses {

    private static final String LEAVE = SimulatorResponses.class.getName() + ".leave";

    private final SimulatorState simulator;

    SimulatorResponses(SimulatorState simulator) {
        this.simulator = simulator;
    }

    /**
     * Sets what ends the exchange's call's time in flight, run (once) by
     * {@link #leave(HttpExchange)}.
     */
    static void onLeave(HttpExchange exchange, Runnable leave) {
        exchange.setAttribute(LEAVE, leave);
    }

    /**
     * The headers of a response: the request id and rate limit levels of the call's
     * bucket, a {@code retry-after}, then the configured overrides and the fault's own.
     */
    Map<String, String> headers(@Nullable SimRequest request, String requestId, @Nullable String retryAfter,
            @Nullable Fault fault) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (request != null) {
            Dialect dialect = request.dialect();
            headers.put(dialect.requestIdHeader(), requestId);
            headers.putAll(dialect.rateLimitHeaders(
                    this.simulator.limiter().levels(new RateLimiter.Key(request.apiKey(), request.model())),
                    this.simulator.now(), this.simulator.roundRemaining()));
        }
        if (retryAfter != null) {
            headers.put("retry-after", retryAfter);
        }
        this.simulator.overrideHeaders(headers);
        if (fault != null) {
            if (fault.retryAfterValue() != null) {
                headers.put("retry-after", fault.retryAfterValue());
            }
            fault.headers().forEach((name, value) -> {
                if (value == null) {
                    headers.remove(name);
                }
                else {
                    headers.put(name, value);
                }
            });
        }
        return headers;
    }

    /** Sends an error for a call, and records its outcome. */
    void sendError(HttpExchange exchange, SimRequest request, String requestId, ErrorSpec error,
            @Nullable String retryAfter, Fault fault) throws IOException {
        Map<String, String> headers = headers(request, requestId, retryAfter, fault);
        this.simulator.recorder().outcome(request.model(), StatsRecorder.outcomeOf(error.status()));
        send(exchange, error.status(), request.dialect().errorBody(error, requestId), headers);
    }

    /** Sends an error before a call was parsed, in the dialect of its path. */
    void sendError(HttpExchange exchange, Dialect dialect, String requestId, ErrorSpec error,
            @Nullable String retryAfter, Map<String, String> headers) throws IOException {
        headers.put(dialect.requestIdHeader(), requestId);
        if (retryAfter != null) {
            headers.put("retry-after", retryAfter);
        }
        this.simulator.overrideHeaders(headers);
        send(exchange, error.status(), dialect.errorBody(error, requestId), headers);
    }

    /** Sends a complete (JSON, unless the headers say otherwise) response. */
    static void send(HttpExchange exchange, int status, String body, Map<String, String> headers) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        headers.putIfAbsent("content-type", "application/json");
        apply(exchange.getResponseHeaders(), headers);
        leave(exchange);
        exchange.sendResponseHeaders(status, (bytes.length == 0) ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /**
     * Ends the call's time in flight (once), before its response's last bytes are
     * written.
     */
    static void leave(HttpExchange exchange) {
        if (exchange.getAttribute(LEAVE) instanceof Runnable leave) {
            leave.run();
        }
    }

    static void apply(Headers target, Map<String, String> headers) {
        headers.forEach(target::set);
    }

}
