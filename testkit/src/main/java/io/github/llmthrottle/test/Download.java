package io.github.llmthrottle.test;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A download the simulator serves: a file's content ({@code GET /v1/files/{id}/content},
 * Anthropic's Files API and OpenAI's) or a message batch's results ({@code GET
 * /v1/messages/batches/{id}/results}, JSON Lines). The body is generated while it is
 * written, a chunk at a time, so its size does not depend on memory.
 */
enum Download {

    /** A file's content: the configured number of bytes of text. */
    FILE_CONTENT(Pattern.compile("/v1/files/[^/]+/content"), "application/octet-stream"),

    /**
     * A message batch's results: one JSON line per request, {@value #LINE_LENGTH} bytes
     * each, as many as it takes to reach the configured size.
     */
    BATCH_RESULTS(Pattern.compile("/v1/messages/batches/[^/]+/results"), "application/binary");

    /** The length of every line of batch results, its newline included. */
    static final int LINE_LENGTH = 1024;

    private static final int CHUNK = 64 * 1024;

    private static final String DIGITS = "0000000000";

    private static final String LINE_START = "{\"custom_id\":\"request-";

    private static final String LINE_MIDDLE = "\",\"result\":{\"type\":\"succeeded\",\"message\":{\"id\":\"msg_01Simulated\","
            + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\","
            + "\"text\":\"";

    private static final String LINE_END = "\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
            + "\"usage\":{\"input_tokens\":12,\"output_tokens\":160}}}}\n";

    private final Pattern path;

    private final String contentType;

    Download(Pattern path, String contentType) {
        this.path = path;
        this.contentType = contentType;
    }

    /**
     * The download a path asks for.
     * @param path the request path
     * @return the download, or {@code null} if the path is no download
     */
    static @Nullable Download of(String path) {
        for (Download download : values()) {
            if (download.path.matcher(path).matches()) {
                return download;
            }
        }
        return null;
    }

    String contentType() {
        return this.contentType;
    }

    /**
     * The length of the body for a configured size: the size itself for a file, whole
     * lines of at least that size for batch results.
     */
    long length(long configuredBytes) {
        if (this == FILE_CONTENT) {
            return configuredBytes;
        }
        return (configuredBytes + LINE_LENGTH - 1) / LINE_LENGTH * LINE_LENGTH;
    }

    /**
     * Writes {@code length} bytes of the body.
     * @throws InterruptedIOException if the thread is interrupted (the simulator is
     * closing)
     */
    void write(OutputStream out, long length) throws IOException {
        // a batch result is one numbered line, and length(..) makes the body whole lines
        byte[] block = (this == BATCH_RESULTS) ? lineTemplate() : fileChunk();
        long written = 0;
        long index = 0;
        while (written < length) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException("The simulator is closing");
            }
            if (this == BATCH_RESULTS) {
                number(block, ++index);
            }
            int n = (int) Math.min(block.length, length - written);
            out.write(block, 0, n);
            written += n;
        }
    }

    private static byte[] fileChunk() {
        byte[] text = Dialect.text(0, 64).getBytes(StandardCharsets.US_ASCII);
        byte[] chunk = new byte[CHUNK];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = text[i % text.length];
        }
        return chunk;
    }

    private static byte[] lineTemplate() {
        int padding = LINE_LENGTH - LINE_START.length() - DIGITS.length() - LINE_MIDDLE.length() - LINE_END.length();
        String text = Dialect.text(0, padding / 4 + 1).substring(0, padding);
        return (LINE_START + DIGITS + LINE_MIDDLE + text + LINE_END).getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes the line's number into its {@code custom_id}. */
    private static void number(byte[] line, long index) {
        byte[] digits = Long.toString(index).getBytes(StandardCharsets.US_ASCII);
        int start = LINE_START.length();
        Arrays.fill(line, start, start + DIGITS.length(), (byte) '0');
        System.arraycopy(digits, 0, line, start + DIGITS.length() - digits.length, digits.length);
    }

}
