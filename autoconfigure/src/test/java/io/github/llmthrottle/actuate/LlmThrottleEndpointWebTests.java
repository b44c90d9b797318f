package io.github.llmthrottle.actuate;

import java.net.http.HttpResponse;
import java.util.List;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.limit.ConcurrencyLimits;
import io.github.llmthrottle.test.Fault;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.github.llmthrottle.actuate.ObservedApplication.OPUS;
import static io.github.llmthrottle.actuate.ObservedApplication.SONNET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code llmthrottle} endpoint over real HTTP, after real traffic against the
 * simulator.
 */
class LlmThrottleEndpointWebTests {

    @Test
    void endpointShowsEveryContractFieldWithLiveValuesAfterTraffic() {
        try (ObservedApplication app = ObservedApplication.start()) {
            for (int i = 0; i < 3; i++) {
                assertThat(app.call(OPUS)).contains("\"type\":\"message\"");
            }
            // a 429 asking for 30 s: the model pauses, and the retry cannot be admitted
            // within max-wait (1 s)
            app.simulator().script(OPUS, Fault.status(429).retryAfter("30"));
            assertThatExceptionOfType(AdmissionTimeoutException.class).isThrownBy(() -> app.call(OPUS));

            HttpResponse<String> response = app.get("/llmthrottle");
            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode client = ObservedApplication.parse(response.body()).path("clients").path("anthropic");
            assertThat(client.path("provider").asString()).isEqualTo("anthropic");
            assertThat(fieldNames(client.path("models"))).contains(OPUS, SONNET);
            JsonNode opus = client.path("models").path(OPUS);
            assertEveryContractField(opus);

            JsonNode limits = opus.path("limits");
            assertThat(limits.path("requestsPerMinute").asLong()).isEqualTo(100);
            assertThat(limits.path("inputTokensPerMinute").asLong()).isEqualTo(100_000);
            assertThat(limits.path("outputTokensPerMinute").asLong()).isEqualTo(20_000);
            assertThat(limits.path("maxConcurrency").asInt()).isEqualTo(8);
            assertThat(opus.path("available").path("requests").asLong()).isBetween(90L, 97L);
            assertThat(opus.path("available").path("inputTokens").asLong()).isBetween(1L, 100_000L);
            assertThat(opus.path("server").path("requestsRemaining").asLong()).isBetween(990L, 1000L);
            assertThat(opus.path("server").path("inputTokensRemaining").asLong()).isBetween(1L, 1_000_000L);
            assertThat(opus.path("server").path("requestsReset").asString()).isNotBlank();
            assertThat(opus.path("server").path("observedAt").asString()).isNotBlank();
            assertThat(opus.path("pausedUntil").asString()).isNotBlank();
            assertThat(opus.path("inFlight").asInt()).isZero();
            assertThat(opus.path("concurrencyLimit").asInt()).isBetween(1, 8);
            assertThat(opus.path("queued").path("normal").asInt()).isZero();
            assertThat(opus.path("circuit").asString()).isEqualTo("CLOSED");
            assertThat(opus.path("contextWindow").asLong()).isEqualTo(200_000);
            assertThat(client.path("models").path(SONNET).path("contextWindow").isNumber()).isFalse();
            JsonNode totals = opus.path("totals");
            assertThat(totals.path("calls").asLong()).isEqualTo(4);
            assertThat(totals.path("attempts").asLong()).isEqualTo(4);
            assertThat(totals.path("succeeded").asLong()).isEqualTo(3);
            assertThat(totals.path("failed").asLong()).isEqualTo(1);
            assertThat(totals.path("rateLimited").asLong()).isEqualTo(1);
            assertThat(totals.path("retries").asLong()).isEqualTo(1);
            assertThat(totals.path("rejected").asLong()).isEqualTo(1);
            assertThat(totals.path("inputTokens").asLong()).isPositive();
            assertThat(totals.path("outputTokens").asLong()).isPositive();
            assertThat(totals.path("cacheReadTokens").isNumber()).isTrue();
            assertThat(totals.path("cacheWriteTokens").isNumber()).isTrue();

            HttpResponse<String> one = app.get("/llmthrottle/anthropic/" + OPUS);
            assertThat(one.statusCode()).isEqualTo(200);
            JsonNode single = ObservedApplication.parse(one.body());
            assertEveryContractField(single);
            assertThat(single.path("totals")).isEqualTo(totals);
        }
    }

    @Test
    void modelNameContainingSlashesIsAddressedAsWritten() {
        String llama = "meta-llama/llama-3.3-70b";
        try (ObservedApplication app = ObservedApplication.start(
                "llm.throttle.clients.anthropic.models[" + llama + "].requests-per-minute=10",
                "management.endpoint.llmthrottle.access=unrestricted")) {
            HttpResponse<String> one = app.get("/llmthrottle/anthropic/" + llama);
            assertThat(one.statusCode()).isEqualTo(200);
            assertThat(ObservedApplication.parse(one.body()).path("limits").path("requestsPerMinute").asLong())
                .isEqualTo(10);
            HttpResponse<String> updated = app.post("/llmthrottle/anthropic/" + llama, "{\"requestsPerMinute\":20}");
            assertThat(updated.statusCode()).isEqualTo(200);
            assertThat(ObservedApplication.parse(updated.body()).path("limits").path("requestsPerMinute").asLong())
                .isEqualTo(20);
            HttpResponse<String> prefix = app.get("/llmthrottle/anthropic/meta-llama");
            assertThat(prefix.statusCode()).isEqualTo(404);
            assertThat(prefix.body()).contains("No model 'meta-llama' of client 'anthropic' is known");
            assertThat(app.get("/llmthrottle/anthropic/" + OPUS).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void tenantIdsAreHiddenUnlessAsked() {
        try (ObservedApplication app = ObservedApplication
            .start("llm.throttle.tenants.overrides.acme.tokens-per-month=500000")) {
            app.call(OPUS);
            JsonNode tenant = app.json("/llmthrottle").path("quotas").get(0);
            assertThat(tenant.path("scope").asString()).isEqualTo("tenant");
            assertThat(tenant.path("tenant").isMissingNode() || tenant.path("tenant").isNull()).isTrue();
            assertThat(tenant.path("remaining").asLong()).isEqualTo(500_000);
        }
    }

    @Test
    void endpointShowsWhatIsLeftOfEachTokenQuotaAndEveryModelsConcurrencyLimit() {
        try (ObservedApplication app = ObservedApplication.start(
                "llm.throttle.clients.anthropic.models." + OPUS + ".tokens-per-day=1000000",
                "llm.throttle.tenants.overrides.acme.tokens-per-month=500000", "llm.throttle.show-tenants=always")) {
            app.call(OPUS);
            JsonNode root = app.json("/llmthrottle");
            JsonNode quotas = root.path("quotas");
            assertThat(quotas.size()).isEqualTo(2);
            JsonNode model = quotas.get(0);
            assertThat(model.path("scope").asString()).isEqualTo("model");
            assertThat(model.path("client").asString()).isEqualTo("anthropic");
            assertThat(model.path("model").asString()).isEqualTo(OPUS);
            assertThat(model.path("window").asString()).isEqualTo("day");
            assertThat(model.path("limit").asLong()).isEqualTo(1_000_000);
            assertThat(model.path("used").asLong()).isPositive();
            assertThat(model.path("remaining").asLong()).isEqualTo(1_000_000 - model.path("used").asLong());
            assertThat(model.path("resetsAt").asString()).endsWith("T00:00:00Z");
            assertThat(model.path("exhausted").isBoolean()).isTrue();
            assertThat(model.path("exhausted").asBoolean()).isFalse();
            JsonNode tenant = quotas.get(1);
            assertThat(tenant.path("scope").asString()).isEqualTo("tenant");
            assertThat(tenant.path("tenant").asString()).isEqualTo("acme");
            assertThat(tenant.path("window").asString()).isEqualTo("month");
            assertThat(tenant.path("remaining").asLong()).isEqualTo(500_000);
            // a model without max-concurrency has an adaptive limit too
            assertThat(
                    root.path("clients").path("anthropic").path("models").path(SONNET).path("concurrencyLimit").asInt())
                .isEqualTo(ConcurrencyLimits.DEFAULT_INITIAL);
        }
    }

    @Test
    void unknownClientOrModelIsNotFound() {
        try (ObservedApplication app = ObservedApplication.start()) {
            assertThat(app.get("/llmthrottle/nobody/" + OPUS).statusCode()).isEqualTo(404);
            assertThat(app.get("/llmthrottle/anthropic/no-such-model").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void writeAccessIsOffByDefault() {
        try (ObservedApplication app = ObservedApplication.start()) {
            HttpResponse<String> response = app.post("/llmthrottle/anthropic/" + OPUS, "{\"requestsPerMinute\":2}");
            assertThat(response.statusCode()).isIn(404, 405);
            assertThat(app.json("/llmthrottle/anthropic/" + OPUS).path("limits").path("requestsPerMinute").asLong())
                .isEqualTo(100);
        }
    }

    @Test
    void writeOperationChangesALimitAndAdmissionFollowsIt() {
        try (ObservedApplication app = ObservedApplication
            .start("management.endpoint.llmthrottle.access=unrestricted")) {
            HttpResponse<String> response = app.post("/llmthrottle/anthropic/" + OPUS,
                    "{\"requestsPerMinute\":2,\"maxConcurrency\":4}");
            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode state = ObservedApplication.parse(response.body());
            assertThat(state.path("limits").path("requestsPerMinute").asLong()).isEqualTo(2);
            assertThat(state.path("limits").path("maxConcurrency").asInt()).isEqualTo(4);
            // the values not given keep their setting
            assertThat(state.path("limits").path("inputTokensPerMinute").asLong()).isEqualTo(100_000);
            assertThat(state.path("available").path("requests").asLong()).isLessThanOrEqualTo(2);

            app.call(OPUS);
            app.call(OPUS);
            // the bucket now holds two requests a minute: the third cannot be admitted
            // within max-wait
            assertThatExceptionOfType(AdmissionTimeoutException.class).isThrownBy(() -> app.call(OPUS));
            assertThat(app.simulator().stats().attempts()).isEqualTo(2);

            HttpResponse<String> reset = app.post("/llmthrottle/anthropic/" + OPUS, "{\"reset\":true}");
            assertThat(reset.statusCode()).isEqualTo(200);
            assertThat(ObservedApplication.parse(reset.body()).path("limits").path("requestsPerMinute").asLong())
                .isEqualTo(100);
        }
    }

    @Test
    void invalidLimitIsABadRequestNamingTheField() {
        try (ObservedApplication app = ObservedApplication
            .start("management.endpoint.llmthrottle.access=unrestricted")) {
            HttpResponse<String> response = app.post("/llmthrottle/anthropic/" + OPUS,
                    "{\"outputTokensPerMinute\":-5}");
            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(response.body()).contains("outputTokensPerMinute").contains("-5");
            HttpResponse<String> huge = app.post("/llmthrottle/anthropic/" + OPUS,
                    "{\"inputTokensPerMinute\":9223372036854775807}");
            assertThat(huge.statusCode()).isEqualTo(400);
            assertThat(huge.body()).contains("inputTokensPerMinute").contains("must be at most");
            assertThat(app.json("/llmthrottle/anthropic/" + OPUS).path("limits").path("outputTokensPerMinute").asLong())
                .isEqualTo(20_000);
            assertThat(app.json("/llmthrottle/anthropic/" + OPUS).path("limits").path("inputTokensPerMinute").asLong())
                .isEqualTo(100_000);
            assertThat(app.post("/llmthrottle/anthropic/no-such-model", "{\"requestsPerMinute\":5}").statusCode())
                .isEqualTo(404);
        }
    }

    private static void assertEveryContractField(JsonNode state) {
        assertThat(fieldNames(state.path("limits"))).contains("requestsPerMinute", "inputTokensPerMinute",
                "outputTokensPerMinute", "maxConcurrency");
        assertThat(fieldNames(state.path("available"))).contains("requests", "inputTokens", "outputTokens");
        assertThat(fieldNames(state.path("server"))).contains("requestsRemaining", "requestsReset",
                "inputTokensRemaining", "inputTokensReset", "outputTokensRemaining", "outputTokensReset", "observedAt");
        assertThat(fieldNames(state)).contains("pausedUntil", "inFlight", "concurrencyLimit", "queued", "circuit",
                "totals");
        assertThat(fieldNames(state.path("queued"))).contains("realtime", "normal", "batch");
        assertThat(fieldNames(state.path("totals"))).containsExactlyInAnyOrder("calls", "attempts", "succeeded",
                "failed", "rateLimited", "overloaded", "retries", "fallbacks", "rejected", "inputTokens",
                "outputTokens", "cacheReadTokens", "cacheWriteTokens");
    }

    static List<String> fieldNames(JsonNode node) {
        return node.propertyNames().stream().toList();
    }

}
