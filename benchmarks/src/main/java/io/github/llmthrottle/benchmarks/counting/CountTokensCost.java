package io.github.llmthrottle.benchmarks.counting;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.benchmarks.ThrottleApplication;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

/**
 * What {@code estimation: count-tokens} adds to a call, against a provider on loopback
 * whose {@code /v1/messages} answers at once and whose {@code /v1/messages/count_tokens}
 * answers after a given delay. One caller sends calls in turn, half of them with a
 * 30,000-character prompt (counted) and half with a 2,000-character one (not counted),
 * once with {@code estimation: characters} and once with {@code count-tokens} per delay;
 * the table gives the time per call of each kind and the share of calls counted. A last
 * run sends large prompts faster than the counting budget (100 a minute) allows, to show
 * that calls over it are not held. Not part of {@code verify}:
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.llmthrottle.benchmarks.counting.CountTokensCost
 * </pre>
 */
public final class CountTokensCost {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final String ANSWER = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}],\"model\":\"" + MODEL
            + "\",\"stop_reason\":\"end_turn\"," + "\"usage\":{\"input_tokens\":7000,\"output_tokens\":10}}";

    private static final int CALLS = 400;

    private static final String LARGE = MessagesBodies.singleTurn(MODEL, 64, MessagesBodies.prose(30_000, 1));

    private static final String SMALL = MessagesBodies.singleTurn(MODEL, 64, MessagesBodies.prose(2_000, 2));

    private final AtomicInteger counts = new AtomicInteger();

    private volatile long countDelayMillis;

    private CountTokensCost() {
    }

    public static void main(String[] args) throws Exception {
        // without it the loopback server's small writes wait for delayed ACKs (about 40
        // ms)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        new CountTokensCost().run();
    }

    private void run() throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(8);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(executor);
        server.createContext("/v1/messages", this::answer);
        server.start();
        String baseUrl = "http://127.0.0.1:" + server.getAddress().getPort();
        try {
            System.out.println("| estimation | count_tokens delay | large prompt: mean, p50, p99 (ms) "
                    + "| small prompt: mean (ms) | calls counted |");
            System.out.println("|---|---|---|---|---|");
            measure(baseUrl, "characters", 0, 100_000);
            for (long delay : new long[] { 0, 20, 100, 500 }) {
                measure(baseUrl, "count-tokens", delay, 100_000);
            }
            overBudget(baseUrl);
        }
        finally {
            server.stop(0);
            executor.shutdownNow();
        }
    }

    private void measure(String baseUrl, String estimation, long delay, int budget) {
        this.countDelayMillis = delay;
        try (ConfigurableApplicationContext context = start(baseUrl, estimation, budget)) {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            for (int i = 0; i < 50; i++) {
                MessagesBodies.post(client, (i % 2 == 0) ? LARGE : SMALL);
            }
            this.counts.set(0);
            long[] large = new long[CALLS / 2];
            long[] small = new long[CALLS / 2];
            for (int i = 0; i < CALLS; i++) {
                long started = System.nanoTime();
                MessagesBodies.post(client, (i % 2 == 0) ? LARGE : SMALL);
                long took = System.nanoTime() - started;
                if (i % 2 == 0) {
                    large[i / 2] = took;
                }
                else {
                    small[i / 2] = took;
                }
            }
            Arrays.sort(large);
            System.out.printf("| %s | %s | %.2f, %.2f, %.2f | %.2f | %d of %d (%.0f %%) |%n", estimation,
                    estimation.equals("characters") ? "-" : delay + " ms", mean(large), millis(large[large.length / 2]),
                    millis(large[(int) (large.length * 0.99)]), mean(small), this.counts.get(), CALLS,
                    100.0 * this.counts.get() / CALLS);
        }
    }

    /** 300 large prompts as fast as one caller sends them, on the default budget. */
    private void overBudget(String baseUrl) {
        this.countDelayMillis = 20;
        try (ConfigurableApplicationContext context = start(baseUrl, "count-tokens", 100)) {
            RestClient client = context.getBean("anthropicRestClient", RestClient.class);
            this.counts.set(0);
            long started = System.nanoTime();
            int calls = 300;
            for (int i = 0; i < calls; i++) {
                MessagesBodies.post(client, LARGE);
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("%nOver budget (100 counts a minute): %d large calls in %.1f s, %d counted (%.0f %%)%n",
                    calls, seconds, this.counts.get(), 100.0 * this.counts.get() / calls);
        }
    }

    private static ConfigurableApplicationContext start(String baseUrl, String estimation, int budget) {
        String client = "llm.throttle.clients.anthropic.";
        return ThrottleApplication.start(baseUrl, MODEL,
                Map.of("requests-per-minute", 10_000_000, "input-tokens-per-minute", 1_000_000_000L,
                        "output-tokens-per-minute", 1_000_000_000L),
                client + "estimation=" + estimation, client + "count-tokens.requests-per-minute=" + budget,
                "llm.throttle.slow-start.enabled=false");
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            byte[] body;
            if (exchange.getRequestURI().getPath().endsWith("/count_tokens")) {
                this.counts.incrementAndGet();
                sleep(this.countDelayMillis);
                body = "{\"input_tokens\":7000}".getBytes(StandardCharsets.UTF_8);
            }
            else {
                body = ANSWER.getBytes(StandardCharsets.UTF_8);
            }
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static double mean(long[] nanos) {
        return Arrays.stream(nanos).average().orElse(0) / 1e6;
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

}
