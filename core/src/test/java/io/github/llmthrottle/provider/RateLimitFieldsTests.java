package io.github.llmthrottle.provider;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitFieldsTests {

    @Test
    @DisplayName("a RateLimit field gives its name, remaining count and reset: \"default\";r=50;t=30")
    void parsesRateLimit() {
        List<RateLimitFields.Limit> limits = RateLimitFields.parseLimits(List.of("\"default\";r=50;t=30"));
        assertThat(limits).singleElement().satisfies((limit) -> {
            assertThat(limit.name()).isEqualTo("default");
            assertThat(limit.remaining()).isEqualTo(50);
            assertThat(limit.reset()).isEqualTo(Duration.ofSeconds(30));
            assertThat(limit.partitionKey()).isNull();
        });
    }

    @Test
    @DisplayName("one RateLimit-Policy field lists two policies, burst 100 per 60 s and daily 1000 per 86400 s")
    void parsesPolicies() {
        List<RateLimitFields.Policy> policies = RateLimitFields
            .parsePolicies(List.of("\"burst\";q=100;w=60,\"daily\";q=1000;w=86400"));
        assertThat(policies).extracting(RateLimitFields.Policy::name).containsExactly("burst", "daily");
        assertThat(policies).extracting(RateLimitFields.Policy::quota).containsExactly(100L, 1000L);
        assertThat(policies).extracting(RateLimitFields.Policy::window)
            .containsExactly(Duration.ofSeconds(60), Duration.ofSeconds(86400));
        assertThat(policies).allMatch(RateLimitFields.Policy::countsRequests);
    }

    @Test
    void joinsPoliciesSplitAcrossHeaderLines() {
        List<RateLimitFields.Policy> policies = RateLimitFields
            .parsePolicies(List.of("\"burst\";q=100;w=60", "\"bytes\";q=5000;qu=\"content-bytes\""));
        assertThat(policies).hasSize(2);
        assertThat(policies.get(1).countsRequests()).isFalse();
        assertThat(policies.get(1).window()).isNull();
    }

    @Test
    @DisplayName("a limit without a reset keeps its remaining count and the bytes of its partition key")
    void parsesPartitionKey() {
        List<RateLimitFields.Limit> limits = RateLimitFields
            .parseLimits(List.of("\"default\";r=999;pk=:dHJpYWwxMjEzMjM=:"));
        assertThat(limits).singleElement().satisfies((limit) -> {
            assertThat(limit.remaining()).isEqualTo(999);
            assertThat(limit.reset()).isNull();
            assertThat(new String(limit.partitionKey(), StandardCharsets.US_ASCII)).isEqualTo("trial121323");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = { "default;r=abc", "\"default\";r=abc", "\"default\";t=30", "\"default\";r=-1",
            "\"default\";r=1.5", "\"default\";r=50,", "\"default\";r=50;pk=:!!:", "\"unterminated;r=1",
            "(\"inner\");r=1", "\"a\";r=1 \"b\";r=2", "\"default\";r=50;t=\"30\"" })
    @DisplayName("a malformed field is ignored whole")
    void ignoresMalformedFields(String value) {
        assertThat(RateLimitFields.parseLimits(List.of(value))).isEmpty();
    }

    @Test
    void ignoresUnknownParameters() {
        assertThat(RateLimitFields.parseLimits(List.of("\"default\";r=5;acme-burst=?1;t=2"))).singleElement()
            .satisfies((limit) -> assertThat(limit.reset()).isEqualTo(Duration.ofSeconds(2)));
    }

    @Test
    void absentFieldIsEmpty() {
        assertThat(RateLimitFields.parseLimits(List.of())).isEmpty();
        assertThat(RateLimitFields.parsePolicies(List.of())).isEmpty();
    }

}
