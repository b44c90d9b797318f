package io.github.llmthrottle;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TenantQuotaExceededExceptionTests {

    @Test
    void tenantOverItsLimitsNamesTheTenantClientAndModel() {
        TenantQuotaExceededException exception = new TenantQuotaExceededException("anthropic", "claude-sonnet-4-5",
                "acme", Duration.ofSeconds(3));
        assertThat(exception.getClient()).isEqualTo("anthropic");
        assertThat(exception.getModel()).isEqualTo("claude-sonnet-4-5");
        assertThat(exception.getTenant()).isEqualTo("acme");
        assertThat(exception.getRetryAfter()).isEqualTo(Duration.ofSeconds(3));
        assertThat(exception.getMessage()).startsWith("Tenant 'acme' is over its quota for ")
            .contains("anthropic", "claude-sonnet-4-5");
    }

    @Test
    void tenantOverItsLimitsWithoutAWaitHasNoRetryAfter() {
        TenantQuotaExceededException exception = new TenantQuotaExceededException("anthropic", "claude-sonnet-4-5",
                "acme", null);
        assertThat(exception.getTenant()).isEqualTo("acme");
        assertThat(exception.getRetryAfter()).isNull();
        assertThat(exception.getMessage()).startsWith("Tenant 'acme' is over its quota for ");
    }

    @Test
    void tenantWhoseTokenQuotaIsUsedUpNamesTheQuota() {
        TenantQuotaExceededException exception = new TenantQuotaExceededException("anthropic", "claude-sonnet-4-5",
                "acme", "1,000 tokens per day", Duration.ofHours(2));
        assertThat(exception.getTenant()).isEqualTo("acme");
        assertThat(exception.getClient()).isEqualTo("anthropic");
        assertThat(exception.getMessage()).startsWith("Tenant 'acme' has used its quota of 1,000 tokens per day");
    }

}
