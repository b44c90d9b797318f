package io.github.llmthrottle.client;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PromptCacheTests {

    private static final String PREFIX = "You are an agent. " + "z".repeat(30_000);

    private final FakeClock clock = FakeClock.at("2026-12-01T10:00:00Z");

    private final PromptCache cache = new PromptCache(this.clock);

    @Test
    void aPrefixNeverSentIsCountedWhole() {
        LlmRequest request = turn("first", "5m");
        assertThat(this.cache.counted("m", request)).isSameAs(request);
    }

    @Test
    void aSentPrefixIsExpectedReadUntilItsTtlEnds() {
        this.cache.sent("m", turn("first", "5m"));
        LlmRequest next = turn("second question", "5m");
        assertThat(this.cache.counted("m", next).textCharacters()).isLessThan(100);
        this.clock.advance(Duration.ofMinutes(4));
        assertThat(this.cache.expectedRead("m", next)).isNotNull();
        this.clock.advance(Duration.ofMinutes(1));
        assertThat(this.cache.counted("m", next)).isSameAs(next);
    }

    @Test
    void eachCallSentRenewsTheTtl() {
        this.cache.sent("m", turn("first", "5m"));
        this.clock.advance(Duration.ofMinutes(4));
        this.cache.sent("m", turn("second", "5m"));
        this.clock.advance(Duration.ofMinutes(4));
        assertThat(this.cache.expectedRead("m", turn("third", "5m"))).isNotNull();
    }

    @Test
    void anHourLongBreakpointLivesAnHour() {
        this.cache.sent("m", turn("first", "1h"));
        this.clock.advance(Duration.ofMinutes(59));
        assertThat(this.cache.expectedRead("m", turn("second", "1h"))).isNotNull();
        this.clock.advance(Duration.ofMinutes(1));
        assertThat(this.cache.expectedRead("m", turn("second", "1h"))).isNull();
    }

    @Test
    void prefixesAreKeptPerModel() {
        this.cache.sent("opus", turn("first", "5m"));
        assertThat(this.cache.expectedRead("sonnet", turn("second", "5m"))).isNull();
    }

    @Test
    void aPrefixTheProviderDidNotCacheIsCountedWholeForItsTtl() {
        LlmRequest first = turn("first", "5m");
        this.cache.sent("m", first);
        this.cache.settled("m", first, false);
        this.cache.sent("m", turn("second", "5m"));
        assertThat(this.cache.expectedRead("m", turn("third", "5m"))).isNull();
        this.clock.advance(Duration.ofMinutes(5));
        this.cache.sent("m", turn("fourth", "5m"));
        assertThat(this.cache.expectedRead("m", turn("fifth", "5m"))).isNotNull();
    }

    @Test
    void aRefusedCallTakesBackThePrefixItEntered() {
        LlmRequest first = turn("first", "5m");
        assertThat(this.cache.sent("m", first)).isTrue();
        assertThat(this.cache.sent("m", turn("again", "5m"))).isFalse();
        this.cache.refused("m", first);
        assertThat(this.cache.expectedRead("m", turn("second", "5m"))).isNull();
    }

    @Test
    void usageWithACacheWriteOrReadMarksThePrefixCached() {
        LlmRequest first = turn("first", "5m");
        this.cache.settled("m", first, true);
        assertThat(this.cache.expectedRead("m", turn("second", "5m"))).isNotNull();
    }

    @Test
    void memoryIsBoundedByForgettingTheLeastRecentlyUsed() {
        PromptCache small = new PromptCache(this.clock, 2);
        small.sent("a", turn("q", "5m"));
        small.sent("b", turn("q", "5m"));
        small.sent("c", turn("q", "5m"));
        assertThat(small.size()).isEqualTo(2);
        assertThat(small.expectedRead("a", turn("q", "5m"))).isNull();
        assertThat(small.expectedRead("c", turn("q", "5m"))).isNotNull();
    }

    @Test
    void aCacheOfNoEntriesIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new PromptCache(this.clock, 0))
            .withMessageContaining("maxEntries");
    }

    private static LlmRequest turn(String question, String ttl) {
        return new RequestBodyReader().read("""
                {"model":"m","max_tokens":100,
                 "system":[{"type":"text","text":"%s","cache_control":{"type":"ephemeral","ttl":"%s"}}],
                 "messages":[{"role":"user","content":"%s"}]}
                """.formatted(PREFIX, ttl, question).getBytes(StandardCharsets.UTF_8));
    }

}
