package io.github.llmthrottle.benchmarks.load;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

import io.github.llmthrottle.Routing;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.test.OutputTokens;
import io.github.llmthrottle.test.SimulatorStats;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code routing = WEIGHTED, weights = {70, 30}} between Sonnet and Opus costs
 * against the same calls all on Opus, at list prices, when Opus alone is offered about
 * 1.1 to 1.2 times its limits. One caller offers 1,000 calls at 10 a second on a fake
 * clock that the application and the simulated provider share (a wait of the limiter
 * moves it on), so the run takes a few seconds of wall time and its figures do not depend
 * on the machine. Every fourth call is hard (a 1,000-token prompt, {@code max_tokens}
 * 1,024, a 512-token answer), the others easy (100 tokens, {@code max_tokens} 128, a
 * 64-token answer). The figures are printed for the report; the assertions are only
 * generous bounds.
 */
class WeightedRoutingCostIT {

    private static final String OPUS = "claude-opus-4-7";

    private static final String SONNET = "claude-sonnet-4-5";

    private static final int CALLS = 1_000;

    /** One call every 100 ms of the fake clock: 10 calls a second offered. */
    private static final Duration INTERVAL = Duration.ofMillis(100);

    /**
     * Opus: over the 100 s of a run (a full minute in its buckets at the start, then 100
     * s of refill) room for 267,000 input and 160,000 output tokens, where all-Opus
     * offers 325,000 and 176,000: about 1.2 and 1.1 times.
     */
    private static final ModelLimits OPUS_LIMITS = ModelLimits.of(600, 100_000, 60_000);

    /** Sonnet: room for all the calls. */
    private static final ModelLimits SONNET_LIMITS = ModelLimits.of(1_200, 400_000, 200_000);

    private static final String HARD_PROMPT = "h".repeat(4_000);

    private static final String EASY_PROMPT = "e".repeat(400);

    private FakeClock clock;

    private LlmSimulator simulator;

    @BeforeEach
    void startSimulator() {
        this.clock = new FakeClock(Instant.parse("2026-03-02T09:00:00Z")).advancingWaits();
        this.simulator = LlmSimulator.builder()
            .model(OPUS, OPUS_LIMITS)
            .model(SONNET, SONNET_LIMITS)
            .noLatency()
            .outputTokens(OutputTokens.fractionOfMaxTokens(0.5))
            .clock(this.clock)
            .start();
    }

    @AfterEach
    void stopSimulator() {
        this.simulator.close();
    }

    @Test
    void weightedSeventyThirtyCostsLessThanAllOpusAndAccountsForEveryCall() {
        RunResult allOpus = run("all-opus", Answers::allOpus);
        RunResult weighted = run("weighted-70/30", Answers::weighted);
        assertThat(allOpus.succeeded() + allOpus.failed()).as("all-Opus calls accounted for").isEqualTo(CALLS);
        assertThat(weighted.succeeded() + weighted.failed()).as("weighted calls accounted for").isEqualTo(CALLS);
        assertThat(allOpus.succeeded()).as("all-Opus calls that succeeded").isGreaterThanOrEqualTo(CALLS * 9 / 10);
        assertThat(weighted.succeeded()).as("weighted calls that succeeded").isEqualTo(CALLS);
        assertThat(allOpus.answeredBy()).containsOnlyKeys(OPUS);
        assertThat(weighted.answeredBy().get(SONNET)).as("calls answered by Sonnet").isBetween(600, 800);
        assertThat(weighted.costPerThousand()).as("weighted cost per 1,000 calls")
            .isLessThan(allOpus.costPerThousand());
        assertThat(allOpus.simulated()).as("all-Opus run held back by Opus's limits")
            .isGreaterThan(weighted.simulated());
        assertThat(weighted.rate429()).as("429s per attempt, weighted").isLessThanOrEqualTo(0.05);
    }

    private RunResult run(String name, BiFunction<Answers, Question, Answer> method) {
        RunResult[] result = new RunResult[1];
        runner().run((context) -> {
            Answers answers = context.getBean(Answers.class);
            Map<String, Integer> answeredBy = new LinkedHashMap<>();
            Map<String, Integer> hardBy = new LinkedHashMap<>();
            int failed = 0;
            Instant start = this.clock.instant();
            for (int i = 0; i < CALLS; i++) {
                Instant arrival = start.plus(INTERVAL.multipliedBy(i));
                Duration ahead = Duration.between(this.clock.instant(), arrival);
                if (!ahead.isNegative() && !ahead.isZero()) {
                    this.clock.advance(ahead);
                }
                Question question = (i % 4 == 0) ? Question.HARD : Question.EASY;
                try {
                    Answer answer = method.apply(answers, question);
                    answeredBy.merge(answer.model(), 1, Integer::sum);
                    if (question == Question.HARD) {
                        hardBy.merge(answer.model(), 1, Integer::sum);
                    }
                }
                catch (RuntimeException ex) {
                    failed++;
                }
            }
            Duration simulated = Duration.between(start, this.clock.instant());
            result[0] = summarise(name, context, answeredBy, hardBy, failed, simulated);
        });
        return Objects.requireNonNull(result[0]);
    }

    private RunResult summarise(String name, ApplicationContext context, Map<String, Integer> answeredBy,
            Map<String, Integer> hardBy, int failed, Duration simulated) {
        BigDecimal cost = BigDecimal.ZERO;
        long attempts = 0;
        long rateLimited = 0;
        StringBuilder models = new StringBuilder();
        for (String model : new String[] { SONNET, OPUS }) {
            ModelTotals totals = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(model)
                .getTotals();
            SimulatorStats stats = this.simulator.stats(model);
            cost = cost.add(totals.cost());
            attempts += stats.attempts();
            rateLimited += stats.rateLimited();
            models.append(String.format(" %s[calls=%d hard=%d attempts=%d 429s=%d cost=%s retries=%d]", model,
                    answeredBy.getOrDefault(model, 0), hardBy.getOrDefault(model, 0), stats.attempts(),
                    stats.rateLimited(), totals.cost(), totals.snapshot().retries()));
        }
        int succeeded = answeredBy.values().stream().mapToInt(Integer::intValue).sum();
        double costPerThousand = cost.doubleValue() * 1000 / CALLS;
        double rate429 = (attempts == 0) ? 0 : (double) rateLimited / attempts;
        System.out.printf(
                "weighted-cost[%s]: calls=%d succeeded=%d failed=%d cost=%s USD per-1000=%.4f USD attempts=%d "
                        + "429s=%d (%.2f%%) simulated=%.1fs%s%n",
                name, CALLS, succeeded, failed, cost, costPerThousand, attempts, rateLimited, 100 * rate429,
                simulated.toMillis() / 1000.0, models);
        this.simulator.resetStats();
        // a fresh minute of every bucket for the next run
        this.clock.advance(Duration.ofMinutes(2));
        return new RunResult(succeeded, failed, answeredBy, costPerThousand, rate429, simulated);
    }

    private ApplicationContextRunner runner() {
        String client = "llm.throttle.clients.anthropic.";
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                    RestClientAutoConfiguration.class, LlmThrottleAutoConfiguration.class))
            .withUserConfiguration(AnswersConfiguration.class)
            .withBean(TimeSource.class, () -> this.clock)
            .withPropertyValues(client + "provider=anthropic", client + "base-url=" + this.simulator.baseUrl(),
                    client + "api-key=benchmark", "logging.level.root=warn")
            .withPropertyValues(limits(OPUS, OPUS_LIMITS))
            .withPropertyValues(limits(SONNET, SONNET_LIMITS))
            // Anthropic's public list prices per million tokens as of November 2025, as
            // in
            // the sample application (Opus 4.5's for claude-opus-4-7)
            .withPropertyValues(client + "models." + OPUS + ".price.input=5",
                    client + "models." + OPUS + ".price.output=25", client + "models." + SONNET + ".price.input=3",
                    client + "models." + SONNET + ".price.output=15");
    }

    private static String[] limits(String model, ModelLimits limits) {
        String prefix = "llm.throttle.clients.anthropic.models." + model + ".";
        return new String[] { prefix + "requests-per-minute=" + limits.requestsPerMinute(),
                prefix + "input-tokens-per-minute=" + limits.inputTokensPerMinute(),
                prefix + "output-tokens-per-minute=" + limits.outputTokensPerMinute() };
    }

    record RunResult(int succeeded, int failed, Map<String, Integer> answeredBy, double costPerThousand, double rate429,
            Duration simulated) {

    }

    record Answer(String model, String body) {

    }

    enum Question {

        /** About 1,000 input tokens; the simulator answers half of max_tokens: 512. */
        HARD(HARD_PROMPT, 1_024),

        /** About 100 input tokens and a 64-token answer. */
        EASY(EASY_PROMPT, 128);

        private final String prompt;

        private final int maxTokens;

        Question(String prompt, int maxTokens) {
            this.prompt = prompt;
            this.maxTokens = maxTokens;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class AnswersConfiguration {

        @Bean
        Answers answers(@Qualifier("anthropicRestClient") RestClient restClient) {
            return new Answers(restClient);
        }

    }

    public static class Answers {

        private final RestClient restClient;

        Answers(RestClient restClient) {
            this.restClient = restClient;
        }

        @Throttled(client = "anthropic", model = SONNET, fallback = OPUS, routing = Routing.WEIGHTED,
                weights = { 70, 30 }, maxWait = "60s")
        public Answer weighted(Question question) {
            return ask(question);
        }

        @Throttled(client = "anthropic", model = OPUS, maxWait = "60s")
        public Answer allOpus(Question question) {
            return ask(question);
        }

        private Answer ask(Question question) {
            String model = Objects.requireNonNull(ThrottleContext.currentModel());
            String body = this.restClient.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"model\":\"" + model + "\",\"max_tokens\":" + question.maxTokens
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + question.prompt + "\"}]}")
                .retrieve()
                .body(String.class);
            return new Answer(model, Objects.requireNonNull(body));
        }

    }

}
