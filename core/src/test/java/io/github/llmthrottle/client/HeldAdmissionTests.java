package io.github.llmthrottle.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.CharacterTokenEstimator;
import io.github.llmthrottle.provider.Headers;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.retry.Jitter;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.store.LocalBucketStore;
import io.github.llmthrottle.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A model call's first admission waited for ahead of the call
 * ({@link ThrottledClient#admitAhead}), on a fake clock and a model that runs one call at
 * a time: the call's first attempt uses it instead of waiting again, and whatever the
 * call does not use comes back.
 */
class HeldAdmissionTests {

    private static final String MODEL = "opus";

    private static final String REQUEST = """
            {"model":"opus","max_tokens":1000,"messages":[{"role":"user","content":"hello"}]}""";

    private static final String MESSAGE = """
            {"id":"msg_1","type":"message","content":[{"type":"text","text":"Hi"}],\
            "usage":{"input_tokens":12,"output_tokens":40}}""";

    /** A caller that may not wait: an admission asked for again would be refused. */
    private static final Caller IMPATIENT = new Caller(Priority.NORMAL, null, Duration.ZERO, null);

    private final FakeClock clock = FakeClock.at("2026-08-20T10:00:00Z");

    private final ThrottledClient client = client();

    @Test
    void theFirstAttemptUsesTheAdmissionHeldAheadInsteadOfWaitingAgain() throws Exception {
        HeldAdmission held = this.client.admitAhead(request(REQUEST, IMPATIENT)).join();
        assertThat(held).isNotNull();
        assertThat(state().inFlight()).isOne();
        FakeProvider provider = new FakeProvider().then(200, MESSAGE, "content-type", "application/json");
        ThrottledResponse<FakeProvider.Response> response = held.exchange(request(REQUEST, IMPATIENT), provider);
        assertThat(response.status()).isEqualTo(200);
        assertThat(provider.attempts).isOne();
        assertThat(state().inFlight()).isZero();
        assertThat(this.client.model(MODEL).getTotals().snapshot().succeeded()).isOne();
    }

    @Test
    void aCallWaitingAheadThatIsCancelledLeavesTheQueue() {
        HeldAdmission first = this.client.admitAhead(request(REQUEST, Caller.DEFAULT)).join();
        CompletableFuture<HeldAdmission> second = this.client.admitAhead(request(REQUEST, Caller.DEFAULT));
        assertThat(second).isNotDone();
        assertThat(state().queued().total()).isOne();
        second.cancel(false);
        assertThat(state().queued().total()).isZero();
        first.release();
        first.release();
        assertThat(state().inFlight()).isZero();
    }

    @Test
    void anAdmissionHeldForAnotherRequestIsGivenBackAndTheCallWaitsForItsOwn() throws Exception {
        HeldAdmission held = this.client.admitAhead(request(REQUEST, Caller.DEFAULT)).join();
        FakeProvider provider = new FakeProvider().then(200, MESSAGE, "content-type", "application/json");
        ThrottledResponse<FakeProvider.Response> response = held
            .exchange(request(REQUEST.replace("hello", "bye"), IMPATIENT), provider);
        assertThat(response.status()).isEqualTo(200);
        assertThat(provider.attempts).isOne();
        assertThat(state().inFlight()).isZero();
    }

    @Test
    void aRefusalAtAdmissionIsHeldAndFailsTheFirstAttemptUnsent() throws Exception {
        HeldAdmission first = this.client.admitAhead(request(REQUEST, Caller.DEFAULT)).join();
        CompletableFuture<HeldAdmission> admission = this.client.admitAhead(request(REQUEST, IMPATIENT));
        // a wait that may not last ends on the clock's next tick
        this.clock.advance(Duration.ofMillis(1));
        HeldAdmission refused = admission.join();
        assertThat(refused.getRefusal()).isNotNull();
        FakeProvider provider = new FakeProvider();
        assertThatExceptionOfType(LlmThrottleException.class)
            .isThrownBy(() -> refused.exchange(request(REQUEST, IMPATIENT), provider))
            .isSameAs(refused.getRefusal());
        assertThat(provider.attempts).isZero();
        first.release();
        assertThat(state().inFlight()).isZero();
        assertThat(state().queued().total()).isZero();
    }

    @Test
    void aRequestThatIsNotAModelCallHoldsNothing() {
        assertThat(this.client
            .admitAhead(new ProviderRequest("GET", URI.create("https://api.anthropic.com/v1/models"), Headers.EMPTY,
                    new byte[0], false))
            .join()).isNull();
    }

    private LimiterState state() {
        return this.client.model(MODEL).getLimiter().state();
    }

    private static ProviderRequest request(String body, Caller caller) {
        return new ProviderRequest("POST", URI.create("https://api.anthropic.com/v1/messages"), Headers.EMPTY,
                body.getBytes(StandardCharsets.UTF_8), false, null, caller);
    }

    private ThrottledClient client() {
        RetrySettings retry = new RetrySettings(2, Duration.ofMillis(500), 2.0, Duration.ofSeconds(30), Jitter.NONE,
                true, Duration.ofSeconds(60));
        ModelLimits oneAtATime = new ModelLimits(1000L, 1_000_000L, 100_000L, 1);
        ClientSettings clientSettings = new ClientSettings("anthropic", ProviderDialect.ANTHROPIC,
                URI.create("https://api.anthropic.com"), null, Duration.ofSeconds(1), Duration.ofSeconds(1), Map.of(),
                MODEL, ModelLimits.UNLIMITED,
                Map.of(MODEL, new ModelSettings(MODEL, oneAtATime, List.of(), null, Map.of())), retry);
        ThrottleSettings settings = new ThrottleSettings(Map.of("anthropic", clientSettings), 10,
                Duration.ofSeconds(30), null, Map.of());
        LimiterRegistry limiters = new LimiterRegistry(settings.clientLimits(), 10, Duration.ofSeconds(30),
                (tenant) -> null, new LocalBucketStore(this.clock), this.clock);
        return new ThrottledClient(clientSettings, limiters, new CharacterTokenEstimator(), TenantResolver.NONE,
                new CompositeThrottleObserver(List.of()), LlmThrottleObservations.NONE, new RequestBodyReader(),
                new UsageReader(), CircuitSettings.DEFAULTS, this.clock);
    }

}
