package io.github.llmthrottle.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BucketKeysTests {

    @Test
    void namesContainingTheSeparatorCannotShareAKey() {
        assertThat(BucketKeys.model("a:b", "c")).isNotEqualTo(BucketKeys.model("a", "b:c"));
        assertThat(BucketKeys.tenant(BucketKeys.model("a", "b"), "c"))
            .isNotEqualTo(BucketKeys.model("a", "b:tenant:c"));
        assertThat(BucketKeys.model("a%3Ab", "c")).isNotEqualTo(BucketKeys.model("a:b", "c"));
    }

    @Test
    void aModelsKeysAndItsTenantsShareOneRedisClusterHashTag() {
        assertThat(BucketKeys.model("a}b", "{c")).isEqualTo("{a%7Db:%7Bc}");
        assertThat(BucketKeys.tenant(BucketKeys.model("anthropic", "opus"), "}acme{"))
            .isEqualTo("{anthropic:opus}:tenant:%7Dacme%7B");
    }

    @Test
    void plainNamesKeepTheirKeys() {
        assertThat(BucketKeys.model("anthropic", "claude-sonnet-4-5")).isEqualTo("{anthropic:claude-sonnet-4-5}");
        assertThat(BucketKeys.tenant("{anthropic:opus}", "acme")).isEqualTo("{anthropic:opus}:tenant:acme");
    }

}
