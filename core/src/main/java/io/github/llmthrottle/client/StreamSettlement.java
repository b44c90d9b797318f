package io.github.llmthrottle.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.provider.UsageReader;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * The body of a streamed (server-sent events) response, passed to the caller as it
 * arrives, never buffered, while its events are watched for usage (Anthropic
 * {@code message_start} and the cumulative {@code message_delta}, OpenAI's final usage
 * chunk, the Responses API's {@code response.completed}) and for an error inside the 200
 * stream (an {@code error} event, an error chunk, the Responses API's
 * {@code response.failed}). Works on any HTTP library's body stream. When the first bytes
 * reach the caller, that is reported once (the time to first chunk); when the caller
 * reaches the end or closes the body (or the response), the outcome is reported exactly
 * once.
 */
final class StreamSettlement {

    private static final int MAX_LINE = 256 * 1024;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final byte[] ERROR_EVENT = "error".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] FAILED_EVENT = "response.failed".getBytes(StandardCharsets.US_ASCII);

    private static final List<byte[]> ERROR_EVENTS = List.of(ERROR_EVENT, FAILED_EVENT);

    /** The events a provider ends a whole answer with. */
    private static final List<byte[]> FINAL_EVENTS = List.of("message_stop".getBytes(StandardCharsets.US_ASCII),
            "response.completed".getBytes(StandardCharsets.US_ASCII),
            "response.incomplete".getBytes(StandardCharsets.US_ASCII));

    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] ERROR_KEY = "\"error\"".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] USAGE_KEY = "\"usage\"".getBytes(StandardCharsets.US_ASCII);

    private final ProviderResponse delegate;

    private final UsageReader usageReader;

    private final Consumer<Outcome> onEnd;

    private final Runnable onFirstChunk;

    /** Whether the first bytes were read (the body is read by one thread at a time). */
    private boolean firstChunkRead;

    private final AtomicBoolean ended = new AtomicBoolean();

    private final ReentrantLock lock = new ReentrantLock();

    private @Nullable InputStream body;

    /** The input side of the stream's usage: the last event that reported input. */
    private @Nullable Usage input;

    private long outputTokens = -1;

    private @Nullable String errorType;

    /** Whether the provider's final event (or OpenAI's {@code [DONE]}) was read. */
    private volatile boolean answered;

    private final LongSupplier clock;

    private volatile @Nullable Set<StreamSettlement> open;

    /** When the caller last opened or read the body, on {@link #clock}. */
    private volatile long lastActivity;

    StreamSettlement(ProviderResponse delegate, UsageReader usageReader, Consumer<Outcome> onEnd, LongSupplier clock) {
        this(delegate, usageReader, onEnd, () -> {
        }, clock);
    }

    StreamSettlement(ProviderResponse delegate, UsageReader usageReader, Consumer<Outcome> onEnd, Runnable onFirstChunk,
            LongSupplier clock) {
        this.delegate = delegate;
        this.usageReader = usageReader;
        this.onEnd = onEnd;
        this.onFirstChunk = onFirstChunk;
        this.clock = clock;
        this.lastActivity = clock.getAsLong();
    }

    /**
     * The body the caller reads, created on first use.
     * @return the body
     * @throws IOException when the response's body cannot be opened
     */
    InputStream body() throws IOException {
        this.lock.lock();
        try {
            if (this.body == null) {
                this.body = new EventScanningStream(this.delegate.body());
            }
            return this.body;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Closes the response and reports the outcome, if not reported yet: complete when the
     * provider's final event was read (a caller may close the stream at its last event
     * without reading the end of the body).
     */
    void close() {
        try {
            this.delegate.close();
        }
        finally {
            end(this.answered);
        }
    }

    /** Whether the stream has ended (read to its end, closed, or expired). */
    boolean isEnded() {
        return this.ended.get();
    }

    /**
     * Ends a stream its caller has neither read nor closed for longer than
     * {@code timeoutNanos}: the response is closed and the outcome reported as
     * incomplete, so the call's concurrency slot and reservation come back.
     * @param timeoutNanos the longest idle time
     * @return whether the stream was expired now
     */
    boolean expireIfIdle(long timeoutNanos) {
        if (this.ended.get() || this.clock.getAsLong() - this.lastActivity <= timeoutNanos) {
            return false;
        }
        close();
        return true;
    }

    /**
     * Keeps this stream in {@code open} until it ends (for
     * {@link ThrottledClient#expireIdleStreams()}).
     * @param open the set of a client's open streams
     * @return this settlement
     */
    StreamSettlement trackedIn(Set<StreamSettlement> open) {
        this.open = open;
        open.add(this);
        if (this.ended.get()) {
            open.remove(this);
        }
        return this;
    }

    private void end(boolean complete) {
        if (this.ended.compareAndSet(false, true)) {
            Set<StreamSettlement> open = this.open;
            if (open != null) {
                open.remove(this);
            }
            Usage usage = (this.input != null || this.outputTokens >= 0) ? streamedUsage() : null;
            this.onEnd.accept(new Outcome(usage, this.errorType, complete));
        }
    }

    /** The stream's usage: its input side as last reported, its most output tokens. */
    private Usage streamedUsage() {
        Usage in = this.input;
        long output = Math.max(0, this.outputTokens);
        if (in == null) {
            return new Usage(0, output);
        }
        return new Usage(in.inputTokens(), output, in.cacheReadTokens(), in.cacheWriteTokens(), in.promptTokens());
    }

    private void onBytes() {
        if (!this.firstChunkRead) {
            this.firstChunkRead = true;
            this.onFirstChunk.run();
        }
    }

    private void onLine(byte[] line, int length) {
        if (length < 5) {
            return;
        }
        if (startsWith(line, length, "event:")) {
            if (this.errorType == null && isErrorEvent(line, length)) {
                this.errorType = "error";
            }
            this.answered |= isFinalEvent(line, length);
            return;
        }
        if (!startsWith(line, length, "data:")) {
            return;
        }
        int offset = (length > 5 && line[5] == ' ') ? 6 : 5;
        int size = length - offset;
        if (size == DONE.length && indexOf(line, offset, length, DONE) == offset) {
            // OpenAI's last line
            this.answered = true;
            return;
        }
        if (size <= 0 || line[offset] != '{') {
            return;
        }
        // Most events are content deltas: look at the bytes, and decode only what may be
        // an
        // error envelope (text that merely says "error" is content).
        if (indexOf(line, offset, length, ERROR_KEY) >= 0) {
            String type = errorEnvelopeType(line, offset, size);
            if (type != null) {
                this.errorType = type;
            }
        }
        if (indexOf(line, offset, length, USAGE_KEY) >= 0) {
            Usage usage = this.usageReader.read(line, offset, size);
            if (usage != null) {
                // Anthropic's message_delta usage is cumulative and may omit input tokens
                if (usage.promptTokens() > 0) {
                    this.input = usage;
                }
                this.outputTokens = Math.max(this.outputTokens, usage.outputTokens());
            }
        }
    }

    /**
     * Whether an {@code event:} line names the event a whole answer ends with
     * ({@code message_stop}, {@code response.completed}, {@code response.incomplete}).
     */
    private static boolean isFinalEvent(byte[] line, int length) {
        return isEventNamed(line, length, FINAL_EVENTS);
    }

    /**
     * Whether an {@code event:} line names the {@code error} event or the Responses API's
     * {@code response.failed} exactly.
     */
    private static boolean isErrorEvent(byte[] line, int length) {
        return isEventNamed(line, length, ERROR_EVENTS);
    }

    /** Whether an {@code event:} line names one of {@code names} exactly. */
    private static boolean isEventNamed(byte[] line, int length, List<byte[]> names) {
        int from = 6;
        while (from < length && line[from] == ' ') {
            from++;
        }
        int to = length;
        while (to > from && line[to - 1] == ' ') {
            to--;
        }
        for (byte[] name : names) {
            if (isName(line, from, to, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isName(byte[] line, int from, int to, byte[] name) {
        return to - from == name.length && indexOf(line, from, to, name) == from;
    }

    /**
     * The error type of a {@code data:} line that is a provider's error envelope:
     * Anthropic's {@code {"type":"error","error":{"type":"overloaded_error",...}}} or
     * OpenAI's {@code {"error":{"code":"rate_limit_exceeded",...}}}, the Responses API's
     * {@code error} event ({@code {"type":"error","code":...}}, or with an {@code error}
     * object) and its {@code response.failed} event (the code in {@code response.error}).
     * A delta whose text is {@code "error"} is not one, nor is a response whose
     * {@code error} is {@code null}.
     * @return the type, {@code "error"} when the envelope names none, or {@code null}
     * when the line is no error envelope
     */
    private static @Nullable String errorEnvelopeType(byte[] line, int offset, int size) {
        try (JsonParser parser = JSON.createParser(line, offset, size)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            boolean errorType = false;
            String details = null;
            String code = null;
            while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("type".equals(field) && value == JsonToken.VALUE_STRING) {
                    String type = parser.getString();
                    errorType = "error".equals(type) || "response.failed".equals(type);
                }
                else if ("code".equals(field) && value == JsonToken.VALUE_STRING) {
                    code = parser.getString();
                }
                else if ("response".equals(field) && value == JsonToken.START_OBJECT) {
                    details = errorInside(parser);
                }
                else if ("error".equals(field) && value == JsonToken.START_OBJECT) {
                    details = describe(parser);
                }
                else if ("error".equals(field) && value == JsonToken.VALUE_STRING) {
                    details = parser.getString();
                }
                else {
                    parser.skipChildren();
                }
            }
            if (details == null && !errorType) {
                return null;
            }
            String text = (details != null) ? details : "";
            return errorType((errorType && code != null) ? text + code : text);
        }
        catch (JacksonException ex) {
            return null;
        }
    }

    /**
     * The type and code of the {@code error} object of the response the parser is at the
     * start of, which it reads to its end; {@code null} when its error is {@code null}.
     */
    private static @Nullable String errorInside(JsonParser parser) {
        String details = null;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if ("error".equals(field) && value == JsonToken.START_OBJECT) {
                details = describe(parser);
            }
            else {
                parser.skipChildren();
            }
        }
        return details;
    }

    /** The type and code of an error object the parser is at the start of. */
    private static String describe(JsonParser parser) {
        StringBuilder text = new StringBuilder();
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if (("type".equals(field) || "code".equals(field)) && value == JsonToken.VALUE_STRING) {
                text.append(parser.getString()).append(' ');
            }
            else {
                parser.skipChildren();
            }
        }
        return text.toString();
    }

    private static String errorType(String text) {
        for (String type : new String[] { "overloaded_error", "server_is_overloaded", "rate_limit_error",
                "rate_limit_exceeded", "api_error" }) {
            if (text.contains(type)) {
                return type;
            }
        }
        return "error";
    }

    private static int indexOf(byte[] line, int from, int to, byte[] needle) {
        outer: for (int i = from; i <= to - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (line[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static boolean startsWith(byte[] line, int length, String prefix) {
        if (length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (line[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * How a stream ended.
     *
     * @param usage the last usage seen, or {@code null}
     * @param errorType the type of an error event inside the stream, or {@code null}
     * @param complete whether the caller read to the end
     */
    record Outcome(@Nullable Usage usage, @Nullable String errorType, boolean complete) {

    }

    /** Passes bytes through while splitting them into lines for {@link #onLine}. */
    private final class EventScanningStream extends FilterInputStream {

        /**
         * The current line, reused from line to line (grown as needed, up to
         * {@link #MAX_LINE}).
         */
        private byte[] line = new byte[256];

        private int length;

        private boolean overlong;

        EventScanningStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            StreamSettlement.this.lastActivity = StreamSettlement.this.clock.getAsLong();
            int b = super.read();
            if (b < 0) {
                end(true);
            }
            else {
                onBytes();
                scan(b);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            StreamSettlement.this.lastActivity = StreamSettlement.this.clock.getAsLong();
            int n = super.read(buffer, offset, length);
            if (n < 0) {
                end(true);
            }
            else if (n > 0) {
                onBytes();
            }
            for (int i = 0; i < n; i++) {
                scan(buffer[offset + i]);
            }
            return n;
        }

        private void scan(int b) {
            if (b == '\n') {
                if (!this.overlong) {
                    int end = (this.length > 0 && this.line[this.length - 1] == '\r') ? this.length - 1 : this.length;
                    onLine(this.line, end);
                }
                this.length = 0;
                this.overlong = false;
            }
            else if (!this.overlong) {
                if (this.length >= MAX_LINE) {
                    this.overlong = true;
                    this.length = 0;
                }
                else {
                    if (this.length == this.line.length) {
                        this.line = Arrays.copyOf(this.line, Math.min(MAX_LINE, this.line.length * 2));
                    }
                    this.line[this.length++] = (byte) b;
                }
            }
        }

        @Override
        public void close() throws IOException {
            StreamSettlement.this.close();
        }

    }

}
