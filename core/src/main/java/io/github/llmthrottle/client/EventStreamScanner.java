package io.github.llmthrottle.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.provider.UsageReader;
import org.jspecify.annotations.Nullable;

/**
 * Reads a server-sent event stream, or a newline-delimited JSON one (Ollama's, one JSON
 * object a line), byte by byte, as its caller reads it, for what the stream says about
 * its call: its usage (Anthropic {@code message_start} and the cumulative
 * {@code message_delta}, OpenAI's final usage chunk, the Responses API's
 * {@code response.completed}, the counts of Ollama's last line), an error inside the 200
 * stream ({@link ErrorEnvelope}) and whether the provider's final event (Ollama's
 * {@code "done": true} line) came. Keeps one line at a time, never the stream.
 */
final class EventStreamScanner {

    private static final int MAX_LINE = 256 * 1024;

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

    /** The end of Ollama's {@code prompt_eval_count} and {@code eval_count} keys. */
    private static final byte[] EVAL_COUNT_KEY = "eval_count\"".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] DONE_KEY = "\"done\"".getBytes(StandardCharsets.US_ASCII);

    private final UsageReader usageReader;

    /**
     * The current line, reused from line to line (grown as needed, up to
     * {@link #MAX_LINE}).
     */
    private byte[] line = new byte[256];

    private int length;

    private boolean overlong;

    /** The input side of the stream's usage: the last event that reported input. */
    private @Nullable Usage input;

    private long outputTokens = -1;

    private @Nullable String errorType;

    /** Whether the provider's final event (or OpenAI's {@code [DONE]}) was read. */
    private volatile boolean answered;

    EventStreamScanner(UsageReader usageReader) {
        this.usageReader = usageReader;
    }

    /**
     * Takes the next byte of the stream.
     * @param b the byte
     */
    void scan(int b) {
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

    /**
     * The stream ended: a last line without its line feed is read as a whole one.
     */
    void finish() {
        if (this.length > 0 && !this.overlong) {
            onLine(this.line, this.length);
        }
        this.length = 0;
        this.overlong = false;
    }

    /**
     * The stream's usage so far: its input side as last reported, its most output tokens.
     * @return the usage, or {@code null} when no event reported any
     */
    @Nullable Usage usage() {
        if (this.input == null && this.outputTokens < 0) {
            return null;
        }
        Usage in = this.input;
        long output = Math.max(0, this.outputTokens);
        if (in == null) {
            return new Usage(0, output);
        }
        return new Usage(in.inputTokens(), output, in.cacheReadTokens(), in.cacheWriteTokens(), in.promptTokens());
    }

    /**
     * The type of the error event inside the stream.
     * @return the type, or {@code null} when the stream has none
     */
    @Nullable String errorType() {
        return this.errorType;
    }

    /**
     * Whether the provider's final event (or OpenAI's {@code [DONE]}) was read.
     * @return whether the answer is whole
     */
    boolean isAnswered() {
        return this.answered;
    }

    private void onLine(byte[] line, int length) {
        if (length < 5) {
            return;
        }
        if (line[0] == '{') {
            // a line of newline-delimited JSON, which ends with its "done": true line
            onJson(line, 0, length);
            this.answered |= indexOf(line, 0, length, DONE_KEY) >= 0 && this.usageReader.isDone(line, 0, length);
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
        if (size > 0 && line[offset] == '{') {
            onJson(line, offset, length);
        }
    }

    /**
     * A JSON object, from {@code offset} to {@code length}: an event's data or a line.
     */
    private void onJson(byte[] line, int offset, int length) {
        int size = length - offset;
        // Most events are content deltas: look at the bytes, and decode only what may be
        // an error envelope (text that merely says "error" is content).
        if (indexOf(line, offset, length, ERROR_KEY) >= 0) {
            String type = ErrorEnvelope.typeOf(line, offset, size);
            if (type != null) {
                this.errorType = type;
            }
        }
        if (indexOf(line, offset, length, USAGE_KEY) >= 0 || indexOf(line, offset, length, EVAL_COUNT_KEY) >= 0) {
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

}
