package io.github.llmthrottle.test;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One scripted outcome for one request: answer normally, answer with an error status, cut
 * the connection, or stream an error. Immutable; the modifiers return copies, so a fault
 * can be reused in several scripts.
 * <p>
 * Error faults are answered before admission: they do not debit the rate-limit buckets,
 * but they carry the current rate-limit headers of the model like every other response.
 * The body is the dialect's error envelope with a type and message that match the status
 * (override them with {@link #errorType(String)} and {@link #message(String)}).
 * <pre>{@code
 * simulator.script("claude-opus-4-7", Fault.status(429).retryAfter("1"), Fault.overloaded(), Fault.ok());
 * }</pre>
 *
 * @see LlmSimulator#script(String, Fault...)
 */
public final class Fault {

    enum Kind {

        OK, ERROR, OVERLOADED, QUOTA, RESET, STREAM_ERROR, STREAM_CUT

    }

    private static final Fault OK = new Fault(Kind.OK, 200, null, null, null, null, Map.of(), Duration.ZERO, 0);

    private final Kind kind;

    private final int status;

    private final @Nullable String errorType;

    private final @Nullable String errorCode;

    private final @Nullable String message;

    private final @Nullable String retryAfter;

    private final Map<String, @Nullable String> headers;

    private final Duration delay;

    private final int afterEvents;

    private Fault(Kind kind, int status, @Nullable String errorType, @Nullable String errorCode,
            @Nullable String message, @Nullable String retryAfter, Map<String, @Nullable String> headers,
            Duration delay, int afterEvents) {
        this.kind = kind;
        this.status = status;
        this.errorType = errorType;
        this.errorCode = errorCode;
        this.message = message;
        this.retryAfter = retryAfter;
        this.headers = headers;
        this.delay = delay;
        this.afterEvents = afterEvents;
    }

    /**
     * No fault: the request is answered normally (still subject to rate limits, outages
     * and the concurrency cap, but never to random faults).
     * @return the fault
     */
    public static Fault ok() {
        return OK;
    }

    /**
     * An error response with the given status and the dialect's matching error body, for
     * example 429 {@code rate_limit_error}, 500 {@code api_error}, 529
     * {@code overloaded_error} (Anthropic) or 429
     * {@code requests}/{@code rate_limit_exceeded}, 503 {@code service_unavailable_error}
     * (OpenAI). No {@code retry-after} is sent unless {@link #retryAfter(String)} is
     * used. A 429 scripted this way looks like an acceleration limit: the remaining
     * headers still show room. Status 200 is the same as {@link #ok()}.
     * @param status an HTTP status between 400 and 599, or 200
     * @return the fault
     */
    public static Fault status(int status) {
        if (status == 200) {
            return OK;
        }
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("Status must be 200 or 400-599, was " + status);
        }
        return new Fault(Kind.ERROR, status, null, null, null, null, Map.of(), Duration.ZERO, 0);
    }

    /**
     * The provider is overloaded: 529 {@code overloaded_error} in the Anthropic dialect,
     * 503 {@code service_unavailable_error} / {@code server_is_overloaded} in the OpenAI
     * dialect.
     * @return the fault
     */
    public static Fault overloaded() {
        return new Fault(Kind.OVERLOADED, 0, null, null, null, null, Map.of(), Duration.ZERO, 0);
    }

    /**
     * A quota (spend cap) 429 that must not be retried and carries no
     * {@code retry-after}: Anthropic {@code rate_limit_error} with
     * {@code error.details.error_code =
     * enforced_spend_limit_reached}; OpenAI {@code insufficient_quota}.
     * @return the fault
     */
    public static Fault quotaExceeded() {
        return new Fault(Kind.QUOTA, 429, null, null, null, null, Map.of(), Duration.ZERO, 0);
    }

    /**
     * Closes the connection without any response, so the client sees an
     * {@code IOException}.
     * @return the fault
     */
    public static Fault connectionReset() {
        return new Fault(Kind.RESET, 0, null, null, null, null, Map.of(), Duration.ZERO, 0);
    }

    /**
     * A normal response that starts after an extra delay (a slow response).
     * @param delay the extra delay before anything is sent
     * @return the fault
     */
    public static Fault delay(Duration delay) {
        return OK.delayed(delay);
    }

    /**
     * A streaming request is answered 200 and, after {@code afterDeltas} content deltas,
     * gets an {@code event: error} with {@code overloaded_error} (Anthropic) or a
     * {@code data:} object with an {@code error} key (OpenAI Chat Completions), or a
     * {@code response.failed} event whose {@code response.error.code} is the
     * {@link #errorCode(String)}, else the {@link #errorType(String)}, else
     * {@code server_error} (OpenAI Responses), and the stream ends;
     * {@link #errorType(String)} changes the error's type (for example
     * {@code rate_limit_error}, with {@link #retryAfter(String)} on the 200 response, as
     * Azure does). A non-streaming request gets the same as {@link #overloaded()}. Only
     * the output tokens actually streamed are charged.
     * @param afterDeltas the content deltas sent before the error
     * @return the fault
     */
    public static Fault streamError(int afterDeltas) {
        return new Fault(Kind.STREAM_ERROR, 200, null, null, null, null, Map.of(), Duration.ZERO, afterDeltas);
    }

    /**
     * A streaming request is answered 200 and the connection is cut after
     * {@code afterDeltas} content deltas (no terminating chunk), so the client sees an
     * {@code IOException} mid-body. A non-streaming request gets the same as
     * {@link #connectionReset()}.
     * @param afterDeltas the content deltas sent before the cut
     * @return the fault
     */
    public static Fault streamCut(int afterDeltas) {
        return new Fault(Kind.STREAM_CUT, 200, null, null, null, null, Map.of(), Duration.ZERO, afterDeltas);
    }

    /**
     * Returns a copy that sends a {@code retry-after} header with exactly this value.
     * @param value the header value, for example {@code "1"} or an HTTP-date
     * @return the new fault
     */
    public Fault retryAfter(String value) {
        return new Fault(this.kind, this.status, this.errorType, this.errorCode, this.message, value, this.headers,
                this.delay, this.afterEvents);
    }

    /**
     * Returns a copy that sends a header with this value, replacing the simulator's own
     * value.
     * @param name the header name (case-insensitive)
     * @param value the header value
     * @return the new fault
     */
    public Fault header(String name, String value) {
        return withHeader(name, Objects.requireNonNull(value, "value"));
    }

    /**
     * Returns a copy that does not send a header the simulator would otherwise send.
     * @param name the header name (case-insensitive)
     * @return the new fault
     */
    public Fault withoutHeader(String name) {
        return withHeader(name, null);
    }

    private Fault withHeader(String name, @Nullable String value) {
        Map<String, @Nullable String> copy = new LinkedHashMap<>(this.headers);
        copy.put(name.toLowerCase(Locale.ROOT), value);
        return new Fault(this.kind, this.status, this.errorType, this.errorCode, this.message, this.retryAfter,
                Collections.unmodifiableMap(copy), this.delay, this.afterEvents);
    }

    /**
     * Returns a copy with another {@code error.type} in the body.
     * @param type the error type, for example {@code "api_error"}
     * @return the new fault
     */
    public Fault errorType(String type) {
        return new Fault(this.kind, this.status, type, this.errorCode, this.message, this.retryAfter, this.headers,
                this.delay, this.afterEvents);
    }

    /**
     * Returns a copy with an error code: OpenAI {@code error.code} (for example
     * {@code "slow_down"}), Anthropic {@code error.details.error_code}.
     * @param code the error code
     * @return the new fault
     */
    public Fault errorCode(String code) {
        return new Fault(this.kind, this.status, this.errorType, code, this.message, this.retryAfter, this.headers,
                this.delay, this.afterEvents);
    }

    /**
     * Returns a copy with another {@code error.message} in the body.
     * @param message the message
     * @return the new fault
     */
    public Fault message(String message) {
        return new Fault(this.kind, this.status, this.errorType, this.errorCode, message, this.retryAfter, this.headers,
                this.delay, this.afterEvents);
    }

    /**
     * Returns a copy that waits before it takes effect (before the response or the
     * reset).
     * @param delay the extra delay
     * @return the new fault
     */
    public Fault delayed(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("Delay must not be negative");
        }
        return new Fault(this.kind, this.status, this.errorType, this.errorCode, this.message, this.retryAfter,
                this.headers, delay, this.afterEvents);
    }

    Kind kind() {
        return this.kind;
    }

    int status() {
        return this.status;
    }

    @Nullable String errorType() {
        return this.errorType;
    }

    @Nullable String errorCode() {
        return this.errorCode;
    }

    @Nullable String message() {
        return this.message;
    }

    @Nullable String retryAfterValue() {
        return this.retryAfter;
    }

    Map<String, @Nullable String> headers() {
        return this.headers;
    }

    Duration delayValue() {
        return this.delay;
    }

    int afterEvents() {
        return this.afterEvents;
    }

    boolean isOk() {
        return this.kind == Kind.OK;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Fault[").append(this.kind);
        if (this.kind == Kind.ERROR) {
            sb.append(' ').append(this.status);
        }
        if (this.afterEvents > 0) {
            sb.append(" after ").append(this.afterEvents);
        }
        if (this.retryAfter != null) {
            sb.append(" retry-after=").append(this.retryAfter);
        }
        if (!this.delay.isZero()) {
            sb.append(" delay=").append(this.delay);
        }
        return sb.append(']').toString();
    }

}
