package io.github.llmthrottle.benchmarks.load;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.util.StreamUtils;

/**
 * Which limit each 429 a contender got was for, and when: an interceptor placed below a
 * contender's retries (it sees every attempt) that reads the limit from the 429's message
 * (the simulator's "of 60,000 output tokens per minute", as Anthropic words it) and hands
 * the body on unread.
 */
final class RateLimitLog implements ClientHttpRequestInterceptor {

    private static final Pattern LIMIT = Pattern
        .compile("of [0-9,]+ (requests|input tokens|output tokens|tokens) per minute");

    private final ConcurrentLinkedQueue<Entry> entries = new ConcurrentLinkedQueue<>();

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        ClientHttpResponse response = execution.execute(request, body);
        if (response.getStatusCode().value() != 429) {
            return response;
        }
        byte[] content = StreamUtils.copyToByteArray(response.getBody());
        Matcher matcher = LIMIT.matcher(new String(content, StandardCharsets.UTF_8));
        this.entries.add(new Entry(System.nanoTime(), matcher.find() ? matcher.group(1) : "other"));
        return new ReadResponse(response, content);
    }

    /**
     * The 429s by limit, with the second of the run each came in.
     * @param startNanos when the run started, on {@link System#nanoTime()}
     * @return for example {@code output tokens 2 (at 1.2 s, 1.4 s)}, or {@code none}
     */
    String describe(long startNanos) {
        if (this.entries.isEmpty()) {
            return "none";
        }
        Map<String, List<Entry>> byLimit = new TreeMap<>(
                this.entries.stream().collect(Collectors.groupingBy(Entry::limit)));
        return byLimit.entrySet()
            .stream()
            .map((limit) -> limit.getKey() + " " + limit.getValue().size() + " (at "
                    + limit.getValue()
                        .stream()
                        .map((entry) -> String.format(Locale.ROOT, "%.1f s",
                                Duration.ofNanos(entry.nanoTime() - startNanos).toMillis() / 1000.0))
                        .collect(Collectors.joining(", "))
                    + ")")
            .collect(Collectors.joining("; "));
    }

    private record Entry(long nanoTime, String limit) {
    }

    /** A response whose body was read here, handed on as the bytes read. */
    private static final class ReadResponse implements ClientHttpResponse {

        private final ClientHttpResponse response;

        private final byte[] content;

        ReadResponse(ClientHttpResponse response, byte[] content) {
            this.response = response;
            this.content = content;
        }

        @Override
        public HttpStatusCode getStatusCode() throws IOException {
            return this.response.getStatusCode();
        }

        @Override
        public String getStatusText() throws IOException {
            return this.response.getStatusText();
        }

        @Override
        public HttpHeaders getHeaders() {
            return this.response.getHeaders();
        }

        @Override
        public InputStream getBody() {
            return new ByteArrayInputStream(this.content);
        }

        @Override
        public void close() {
            this.response.close();
        }

    }

}
