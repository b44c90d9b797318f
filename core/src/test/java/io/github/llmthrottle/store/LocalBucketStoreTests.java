package io.github.llmthrottle.store;

import java.time.Duration;

import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LocalBucketStoreTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final LocalBucketStore store = new LocalBucketStore(this.clock);

    @Test
    void bucketStartsFullAndRefillsContinuouslyByTheClock() {
        TokenBucket bucket = this.store.bucket("k", 600);
        assertThat(bucket.availableTokens()).isEqualTo(600);
        assertThat(bucket.tryConsume(600)).isTrue();
        assertThat(bucket.tryConsume(1)).isFalse();
        assertThat(bucket.nanosToWaitFor(10)).isCloseTo(Duration.ofSeconds(1).toNanos(),
                org.assertj.core.data.Offset.offset(1_000L));
        this.clock.advance(Duration.ofSeconds(30));
        assertThat(bucket.availableTokens()).isEqualTo(300);
        this.clock.advance(Duration.ofMinutes(5));
        assertThat(bucket.availableTokens()).isEqualTo(600);
    }

    @Test
    void forcedConsumptionOverdrawsAndRefundsNeverOverfill() {
        TokenBucket bucket = this.store.bucket("k", 100);
        bucket.forceConsume(150);
        assertThat(bucket.availableTokens()).isEqualTo(-50);
        bucket.refund(500);
        assertThat(bucket.availableTokens()).isEqualTo(100);
    }

    @Test
    void moreThanTheCapacityNeverFits() {
        assertThat(this.store.bucket("k", 100).nanosToWaitFor(101)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void sameKeyIsTheSameBucketAndANewLimitReconfiguresIt() {
        TokenBucket bucket = this.store.bucket("k", 100);
        bucket.tryConsume(20);
        TokenBucket again = this.store.bucket("k", 50);
        assertThat(again).isSameAs(bucket);
        assertThat(again.capacity()).isEqualTo(50);
        assertThat(again.availableTokens()).isEqualTo(50);
    }

}
