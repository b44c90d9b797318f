package io.github.llmthrottle.test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import static io.github.llmthrottle.test.SimClient.JSON;
import static io.github.llmthrottle.test.SimClient.anthropic;
import static io.github.llmthrottle.test.SimClient.events;
import static io.github.llmthrottle.test.SimClient.json;
import static io.github.llmthrottle.test.SimClient.textOf;
import static org.assertj.core.api.Assertions.assertThat;

class LlmSimulatorPromptCacheTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String SONNET = "claude-sonnet-4-5";

    private final ManualClock clock = ManualClock.at("2023-09-29T16:26:37Z");

    @RegisterExtension
    final LlmSimulatorExtension extension = LlmSimulatorExtension
        .of(LlmSimulator.builder().clock(this.clock).noLatency().roundRemainingTokens(false));

    private LlmSimulator simulator;

    @BeforeEach
    void simulator(LlmSimulator simulator) {
        this.simulator = simulator;
    }

    @Test
    void firstRequestWritesThePrefixAndTheNextReadsIt() {
        JsonNode first = usage(send(cachedSystem(OPUS, 2000, null, 100)));
        assertThat(first.get("cache_creation_input_tokens").intValue()).isEqualTo(2000);
        assertThat(first.get("cache_read_input_tokens").intValue()).isZero();
        assertThat(first.get("input_tokens").intValue()).isEqualTo(100);
        assertThat(first.at("/cache_creation/ephemeral_5m_input_tokens").intValue()).isEqualTo(2000);
        assertThat(first.at("/cache_creation/ephemeral_1h_input_tokens").intValue()).isZero();
        JsonNode second = usage(send(cachedSystem(OPUS, 2000, null, 100)));
        assertThat(second.get("cache_creation_input_tokens").intValue()).isZero();
        assertThat(second.get("cache_read_input_tokens").intValue()).isEqualTo(2000);
        assertThat(second.get("input_tokens").intValue()).isEqualTo(100);
        SimulatorStats stats = this.simulator.stats(OPUS);
        assertThat(stats.cacheCreationInputTokens()).isEqualTo(2000);
        assertThat(stats.cacheReadInputTokens()).isEqualTo(2000);
        assertThat(stats.inputTokens()).isEqualTo(2100 + 100);
        assertThat(stats.admittedPerSecond().values()).containsExactly(2L);
        assertThat(this.simulator.cachedPrefixes(OPUS)).isEqualTo(1);
    }

    @Test
    void cachedPrefixExpiresAfterItsTtlOnTheSimulatorsClockAndEachReadRenewsIt() {
        assertThat(written(send(cachedSystem(OPUS, 2000, null, 100)))).isEqualTo(2000);
        this.clock.advance(Duration.ofSeconds(299));
        assertThat(read(send(cachedSystem(OPUS, 2000, null, 100)))).isEqualTo(2000);
        // ten minutes after the write, but less than five after the read
        this.clock.advance(Duration.ofSeconds(299));
        assertThat(read(send(cachedSystem(OPUS, 2000, null, 100)))).isEqualTo(2000);
        this.clock.advance(Duration.ofMinutes(5));
        assertThat(this.simulator.cachedPrefixes(OPUS)).isZero();
        JsonNode expired = usage(send(cachedSystem(OPUS, 2000, null, 100)));
        assertThat(expired.get("cache_read_input_tokens").intValue()).isZero();
        assertThat(expired.get("cache_creation_input_tokens").intValue()).isEqualTo(2000);
    }

    @Test
    void oneHourTtlOutlivesFiveMinutes() {
        JsonNode written = usage(send(cachedSystem(OPUS, 2000, "1h", 100)));
        assertThat(written.at("/cache_creation/ephemeral_1h_input_tokens").intValue()).isEqualTo(2000);
        assertThat(written.at("/cache_creation/ephemeral_5m_input_tokens").intValue()).isZero();
        this.clock.advance(Duration.ofMinutes(59));
        assertThat(read(send(cachedSystem(OPUS, 2000, "1h", 100)))).isEqualTo(2000);
        this.clock.advance(Duration.ofMinutes(61));
        assertThat(read(send(cachedSystem(OPUS, 2000, "1h", 100)))).isZero();
    }

    @Test
    void cacheReadsDoNotCountAgainstInputTokensPerMinuteSoMoreCachedCallsFit() {
        this.simulator.setLimits(OPUS, ModelLimits.of(1000, 6_000, 100_000));
        // uncached, each call takes all 2,100 of its tokens: the third does not fit
        assertThat(send(uncachedSystem(OPUS, 2000, 100)).statusCode()).isEqualTo(200);
        assertThat(send(uncachedSystem(OPUS, 2000, 100)).statusCode()).isEqualTo(200);
        assertThat(send(uncachedSystem(OPUS, 2000, 100)).statusCode()).isEqualTo(429);
        this.simulator.refillBuckets();
        // cached, the first writes 2,100 and every later one takes only its 100
        for (int i = 0; i < 30; i++) {
            assertThat(send(cachedSystem(OPUS, 2000, null, 100)).statusCode()).as("call %d", i).isEqualTo(200);
        }
        assertThat(this.simulator.levels("", OPUS).inputTokens()).isEqualTo(6_000 - 2_100 - 29 * 100);
    }

    @Test
    void prefixBelowTheMinimumCacheableLengthIsNotCached() {
        send(cachedSystem(OPUS, 1000, null, 100));
        JsonNode short1 = usage(send(cachedSystem(OPUS, 1000, null, 100)));
        assertThat(short1.get("cache_creation_input_tokens").intValue()).isZero();
        assertThat(short1.get("cache_read_input_tokens").intValue()).isZero();
        assertThat(short1.get("input_tokens").intValue()).isEqualTo(1100);
        this.simulator.setMinimumCacheableTokens(512);
        assertThat(written(send(cachedSystem(OPUS, 1000, null, 100)))).isEqualTo(1000);
        assertThat(read(send(cachedSystem(OPUS, 1000, null, 100)))).isEqualTo(1000);
    }

    @Test
    void cachedPrefixesArePerModel() {
        send(cachedSystem(OPUS, 2000, null, 100));
        assertThat(written(send(cachedSystem(SONNET, 2000, null, 100)))).isEqualTo(2000);
        assertThat(read(send(cachedSystem(OPUS, 2000, null, 100)))).isEqualTo(2000);
    }

    @Test
    void breakpointMovedToALaterTurnReadsThePrefixOfTheEarlierOne() {
        ObjectNode first = body(OPUS);
        ArrayNode messages = first.putArray("messages");
        messages.add(turn("user", textOf(1500), true));
        assertThat(written(send(first))).isEqualTo(1500);
        ObjectNode next = body(OPUS);
        ArrayNode longer = next.putArray("messages");
        longer.add(turn("user", textOf(1500), false));
        longer.add(turn("assistant", textOf(300), false));
        longer.add(turn("user", textOf(200), true));
        JsonNode usage = usage(send(next));
        assertThat(usage.get("cache_read_input_tokens").intValue()).isEqualTo(1500);
        assertThat(usage.get("cache_creation_input_tokens").intValue()).isEqualTo(500);
        assertThat(usage.get("input_tokens").intValue()).isZero();
    }

    @Test
    void toolDefinitionsAreThePrefixOfTheSystemPrompt() {
        ObjectNode withTools = cachedSystem(OPUS, 2000, null, 100);
        ObjectNode tool = withTools.putArray("tools").addObject();
        tool.put("name", "search");
        tool.put("description", textOf(1200));
        tool.putObject("input_schema").put("type", "object");
        tool.putObject("cache_control").put("type", "ephemeral");
        send(withTools);
        ObjectNode otherSystem = cachedSystem(OPUS, 1900, null, 100);
        otherSystem.set("tools", withTools.get("tools"));
        JsonNode usage = usage(send(otherSystem));
        int toolTokens = usage.get("cache_read_input_tokens").intValue();
        assertThat(toolTokens).isBetween(1200, 1250);
        assertThat(usage.get("cache_creation_input_tokens").intValue()).isEqualTo(1900);
    }

    @Test
    void streamsMessageStartCarriesTheCacheUsage() {
        send(cachedSystem(OPUS, 2000, null, 100));
        ObjectNode streamed = cachedSystem(OPUS, 2000, null, 100);
        streamed.put("stream", true);
        HttpResponse<String> response = send(streamed);
        assertThat(response.statusCode()).isEqualTo(200);
        List<String[]> events = events(response.body());
        assertThat(events.get(0)[0]).isEqualTo("message_start");
        JsonNode usage = JSON.readTree(events.get(0)[1]).at("/message/usage");
        assertThat(usage.get("cache_read_input_tokens").intValue()).isEqualTo(2000);
        assertThat(usage.get("cache_creation_input_tokens").intValue()).isZero();
        assertThat(usage.get("input_tokens").intValue()).isEqualTo(100);
    }

    @Test
    void rejectedRequestNeitherWritesNorRenewsThePrefix() {
        this.simulator.setLimits(OPUS, ModelLimits.of(1000, 2_000, 100_000));
        HttpResponse<String> rejected = send(cachedSystem(OPUS, 2000, null, 100));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(this.simulator.cachedPrefixes(OPUS)).isZero();
    }

    @Test
    void malformedOrTooManyBreakpointsAreInvalidRequests() {
        ObjectNode badTtl = cachedSystem(OPUS, 2000, "10m", 100);
        HttpResponse<String> response = send(badTtl);
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(json(response).at("/error/message").stringValue())
            .isEqualTo("system.0.cache_control.ttl: Input should be '5m' or '1h'");
        ObjectNode badType = cachedSystem(OPUS, 2000, null, 100);
        ((ObjectNode) badType.at("/system/0/cache_control")).put("type", "persistent");
        assertThat(json(send(badType)).at("/error/message").stringValue())
            .isEqualTo("system.0.cache_control.type: Input should be 'ephemeral'");
        ObjectNode five = body(OPUS);
        ArrayNode messages = five.putArray("messages");
        for (int i = 0; i < 5; i++) {
            messages.add(turn((i % 2 == 0) ? "user" : "assistant", textOf(10), true));
        }
        HttpResponse<String> tooMany = send(five);
        assertThat(tooMany.statusCode()).isEqualTo(400);
        assertThat(json(tooMany).at("/error/message").stringValue())
            .isEqualTo("A maximum of 4 blocks with cache_control may be provided. Found 5.");
    }

    @Test
    void resetForgetsTheCachedPrefixes() {
        send(cachedSystem(OPUS, 2000, null, 100));
        this.simulator.reset();
        assertThat(written(send(cachedSystem(OPUS, 2000, null, 100)))).isEqualTo(2000);
    }

    private HttpResponse<String> send(ObjectNode body) {
        return anthropic(this.simulator, JSON.writeValueAsString(body));
    }

    private static JsonNode usage(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json(response).get("usage");
    }

    private static int read(HttpResponse<String> response) {
        return usage(response).get("cache_read_input_tokens").intValue();
    }

    private static int written(HttpResponse<String> response) {
        return usage(response).get("cache_creation_input_tokens").intValue();
    }

    private static ObjectNode body(String model) {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", model);
        root.put("max_tokens", 10);
        return root;
    }

    /** A system prompt of {@code systemTokens} marked for caching, then a user turn. */
    static ObjectNode cachedSystem(String model, int systemTokens, String ttl, int turnTokens) {
        ObjectNode root = body(model);
        ObjectNode block = root.putArray("system").addObject();
        block.put("type", "text");
        block.put("text", textOf(systemTokens));
        ObjectNode control = block.putObject("cache_control");
        control.put("type", "ephemeral");
        if (ttl != null) {
            control.put("ttl", ttl);
        }
        root.putArray("messages").add(turn("user", textOf(turnTokens), false));
        return root;
    }

    private static ObjectNode uncachedSystem(String model, int systemTokens, int turnTokens) {
        ObjectNode root = body(model);
        root.put("system", textOf(systemTokens));
        root.putArray("messages").add(turn("user", textOf(turnTokens), false));
        return root;
    }

    private static ObjectNode turn(String role, String text, boolean breakpoint) {
        ObjectNode message = JSON.createObjectNode();
        message.put("role", role);
        ObjectNode block = message.putArray("content").addObject();
        block.put("type", "text");
        block.put("text", text);
        if (breakpoint) {
            block.putObject("cache_control").put("type", "ephemeral");
        }
        return message;
    }

}
