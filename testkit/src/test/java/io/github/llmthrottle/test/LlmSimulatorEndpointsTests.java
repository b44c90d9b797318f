package io.github.llmthrottle.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import static io.github.llmthrottle.test.SimClient.JSON;
import static io.github.llmthrottle.test.SimClient.anthropic;
import static io.github.llmthrottle.test.SimClient.header;
import static io.github.llmthrottle.test.SimClient.json;
import static io.github.llmthrottle.test.SimClient.messages;
import static io.github.llmthrottle.test.SimClient.post;
import static io.github.llmthrottle.test.SimClient.textOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Token counting and downloads: the endpoints beside the model calls. */
class LlmSimulatorEndpointsTests {

    private static final String OPUS = "claude-opus-4-7";

    private final ManualClock clock = ManualClock.at("2023-09-29T16:26:37Z");

    @RegisterExtension
    final LlmSimulatorExtension extension = LlmSimulatorExtension
        .of(LlmSimulator.builder().clock(this.clock).noLatency());

    private LlmSimulator simulator;

    @BeforeEach
    void simulator(LlmSimulator simulator) {
        this.simulator = simulator;
    }

    @Test
    void countTokensHasARequestLimitOfItsOwn() {
        this.simulator.setLimits(OPUS, ModelLimits.of(1, 1_000, 1_000)).setCountTokensRequestsPerMinute(2);
        assertThat(countTokens(42).statusCode()).isEqualTo(200);
        HttpResponse<String> second = countTokens(42);
        assertThat(json(second).get("input_tokens").intValue()).isEqualTo(42);
        assertThat(header(second, "anthropic-ratelimit-requests-limit")).isEqualTo("2");
        assertThat(header(second, "anthropic-ratelimit-requests-remaining")).isEqualTo("0");
        HttpResponse<String> third = countTokens(42);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(json(third).get("type").stringValue()).isEqualTo("error");
        assertThat(json(third).at("/error/type").stringValue()).isEqualTo("rate_limit_error");
        assertThat(json(third).get("request_id").stringValue()).startsWith("req_");
        assertThat(header(third, "retry-after")).isEqualTo("30");
        assertThat(header(third, "request-id")).startsWith("req_");
        assertThat(header(third, "anthropic-ratelimit-requests-remaining")).isEqualTo("0");
        // the model's own buckets were not touched, and its one request a minute is
        // still there
        assertThat(this.simulator.levels("", OPUS).requests()).isEqualTo(1);
        assertThat(anthropic(this.simulator, messages(OPUS, 10, "hi")).statusCode()).isEqualTo(200);
        this.clock.advance(Duration.ofSeconds(30));
        assertThat(countTokens(42).statusCode()).isEqualTo(200);
    }

    @Test
    void countTokensLimitIsConfigurableAtRuntimeAndCountsNoModelCall() {
        this.simulator.setCountTokensRequestsPerMinute(1);
        assertThat(countTokens(10).statusCode()).isEqualTo(200);
        assertThat(countTokens(10).statusCode()).isEqualTo(429);
        this.simulator.setCountTokensRequestsPerMinute(0);
        assertThat(countTokens(10).statusCode()).isEqualTo(200);
        assertThat(this.simulator.stats().attempts()).isZero();
        assertThatIllegalArgumentException().isThrownBy(() -> this.simulator.setCountTokensRequestsPerMinute(-1))
            .withMessageContaining("count_tokens limit");
    }

    @Test
    void fileContentStreamsExactlyTheConfiguredBytes() throws IOException {
        long size = 3L * 1024 * 1024 + 5;
        this.simulator.setDownloadBytes(size).setLimits(OPUS, ModelLimits.of(1, 1, 1));
        HttpResponse<InputStream> response = get("/v1/files/file_011CNha8iCJcU1wXNR6q4V8w/content");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "content-type")).isEqualTo("application/octet-stream");
        assertThat(response.headers().firstValueAsLong("content-length")).hasValue(size);
        long read;
        try (InputStream body = response.body()) {
            read = body.transferTo(OutputStream.nullOutputStream());
        }
        assertThat(read).isEqualTo(size);
        // not rate limited: the model's limits are far below it
        assertThat(get("/v1/files/file_2/content").statusCode()).isEqualTo(200);
    }

    @Test
    void batchResultsAreWholeJsonLinesUpToTheConfiguredSize() throws IOException {
        this.simulator.setDownloadBytes(10_000);
        HttpResponse<InputStream> response = get("/v1/messages/batches/msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d/results");
        assertThat(response.statusCode()).isEqualTo(200);
        String body;
        try (InputStream in = response.body()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(body).hasSize(10 * Download.LINE_LENGTH);
        List<String> lines = body.lines().toList();
        assertThat(lines).hasSize(10);
        JsonNode last = JSON.readTree(lines.get(9));
        assertThat(last.get("custom_id").stringValue()).isEqualTo("request-0000000010");
        assertThat(last.at("/result/type").stringValue()).isEqualTo("succeeded");
        assertThat(last.at("/result/message/content/0/type").stringValue()).isEqualTo("text");
    }

    @Test
    void downloadsNeedAKeyWhenKeysAreRequiredAndOnlyAnswerGet() {
        try (LlmSimulator keyed = LlmSimulator.builder().requireApiKey(true).downloadBytes(10).start()) {
            assertThat(get(keyed, "/v1/files/file_1/content").statusCode()).isEqualTo(401);
            assertThat(post(keyed, "/v1/files/file_1/content", "{}", "x-api-key", "sk").statusCode()).isEqualTo(405);
        }
    }

    private HttpResponse<String> countTokens(int tokens) {
        return post(this.simulator, "/v1/messages/count_tokens", "{\"model\":\"" + OPUS
                + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + textOf(tokens) + "\"}]}");
    }

    private HttpResponse<InputStream> get(String path) {
        return get(this.simulator, path);
    }

    private static HttpResponse<InputStream> get(LlmSimulator simulator, String path) {
        try {
            return SimClient.HTTP.send(HttpRequest.newBuilder(URI.create(simulator.baseUrl() + path))
                .timeout(Duration.ofSeconds(20))
                .GET()
                .build(), HttpResponse.BodyHandlers.ofInputStream());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

}
