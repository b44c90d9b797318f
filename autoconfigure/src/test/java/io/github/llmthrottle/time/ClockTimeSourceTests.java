package io.github.llmthrottle.time;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClockTimeSourceTests {

    @Test
    void wallTimeAndNanoTimeBothComeFromTheClock() {
        Instant now = Instant.parse("2026-01-01T00:00:01.5Z");
        TimeSource source = ClockTimeSource.of(Clock.fixed(now, ZoneOffset.UTC));
        assertThat(source.instant()).isEqualTo(now);
        assertThat(source.nanoTime()).isEqualTo(now.getEpochSecond() * 1_000_000_000L + 500_000_000L);
        assertThat(source.clock().instant()).isEqualTo(now);
    }

    @Test
    void aClockThatIsATimeSourceIsUsedAsItIs() {
        FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");
        assertThat(ClockTimeSource.of(clock)).isSameAs(clock);
    }

}
