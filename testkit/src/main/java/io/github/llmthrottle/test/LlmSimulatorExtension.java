package io.github.llmthrottle.test;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Runs an {@link LlmSimulator} for a JUnit Jupiter test class. <pre>{@code
 * &#64;RegisterExtension
 * static LlmSimulatorExtension sim = LlmSimulatorExtension.builder()
 *         .model("claude-opus-4-7", ModelLimits.of(50, 30_000, 8_000))
 *         .build();
 *
 *

&#64;Test
 * void retriesOverloaded() {
 *     sim.simulator().script("claude-opus-4-7", Fault.overloaded(), Fault.ok());
 *     // call sim.baseUrl() ...
 * }
 * }</pre>
 * <p>
 * Registered on a {@code static} field (or with
 * {@code @ExtendWith(LlmSimulatorExtension.class)}, which uses the defaults), the
 * simulator starts before all tests of the class and stops after them; on an instance
 * field it starts before and stops after each test. Test and lifecycle methods can
 * declare an {@link LlmSimulator} parameter to receive it.
 * <p>
 * Before each test (unless {@link Builder#resetBetweenTests(boolean)
 * resetBetweenTests(false)}), the simulator is {@linkplain LlmSimulator#reset() reset} to
 * its built configuration: scripts, outages and header overrides are removed; limits,
 * latency, output policy, random faults (and their seed) and concurrency caps are
 * restored; every bucket is refilled; the statistics are zeroed. The port, clock and API
 * keys stay.
 */
public final class LlmSimulatorExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private final LlmSimulator.Builder builder;

    private final boolean resetBetweenTests;

    private volatile @Nullable LlmSimulator simulator;

    private @Nullable String owner;

    private boolean perTest;

    /** Creates an extension with the simulator's defaults, for {@code @ExtendWith}. */
    public LlmSimulatorExtension() {
        this(LlmSimulator.builder(), true);
    }

    private LlmSimulatorExtension(LlmSimulator.Builder builder, boolean resetBetweenTests) {
        this.builder = builder;
        this.resetBetweenTests = resetBetweenTests;
    }

    /**
     * Starts configuring an extension.
     * @return a builder with the simulator's defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * An extension that starts a simulator configured by the given builder.
     * @param builder the simulator configuration
     * @return the extension
     */
    public static LlmSimulatorExtension of(LlmSimulator.Builder builder) {
        return new LlmSimulatorExtension(builder, true);
    }

    /**
     * The running simulator.
     * @return the simulator
     * @throws IllegalStateException outside the lifecycle of the tests
     */
    public LlmSimulator simulator() {
        LlmSimulator running = this.simulator;
        if (running == null) {
            throw new IllegalStateException("The LLM simulator is not running (outside the test lifecycle?)");
        }
        return running;
    }

    /**
     * The simulator's base URL.
     * @return {@code http://127.0.0.1:<port>}
     * @see LlmSimulator#baseUrl()
     */
    public String baseUrl() {
        return simulator().baseUrl();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (this.simulator == null) {
            this.simulator = this.builder.start();
            this.owner = context.getUniqueId();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        LlmSimulator running = this.simulator;
        if (running == null) {
            this.simulator = this.builder.start();
            this.perTest = true;
        }
        else if (this.resetBetweenTests) {
            running.reset();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (this.perTest) {
            stop();
            this.perTest = false;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getUniqueId().equals(this.owner)) {
            stop();
            this.owner = null;
        }
    }

    private void stop() {
        LlmSimulator running = this.simulator;
        this.simulator = null;
        if (running != null) {
            running.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == LlmSimulator.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return simulator();
    }

    /**
     * Configures an {@link LlmSimulatorExtension}: the common simulator settings,
     * anything else through {@link #configure(Consumer)}.
     */
    public static final class Builder {

        private final LlmSimulator.Builder simulator = LlmSimulator.builder();

        private boolean resetBetweenTests = true;

        private Builder() {
        }

        /**
         * See {@link LlmSimulator.Builder#model(String, ModelLimits)}.
         * @param model the model name
         * @param limits its limits
         * @return this builder
         */
        public Builder model(String model, ModelLimits limits) {
            this.simulator.model(model, limits);
            return this;
        }

        /**
         * See {@link LlmSimulator.Builder#defaultLimits(ModelLimits)}.
         * @param limits the default limits
         * @return this builder
         */
        public Builder defaultLimits(ModelLimits limits) {
            this.simulator.defaultLimits(limits);
            return this;
        }

        /**
         * See {@link LlmSimulator.Builder#latency(Duration, Duration)}.
         * @param base the base latency
         * @param perOutputToken the latency per output token
         * @return this builder
         */
        public Builder latency(Duration base, Duration perOutputToken) {
            this.simulator.latency(base, perOutputToken);
            return this;
        }

        /**
         * See {@link LlmSimulator.Builder#noLatency()}.
         * @return this builder
         */
        public Builder noLatency() {
            this.simulator.noLatency();
            return this;
        }

        /**
         * See {@link LlmSimulator.Builder#outputTokens(int)}.
         * @param typical the typical output
         * @return this builder
         */
        public Builder outputTokens(int typical) {
            this.simulator.outputTokens(typical);
            return this;
        }

        /**
         * See {@link LlmSimulator.Builder#clock(Clock)}.
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.simulator.clock(clock);
            return this;
        }

        /**
         * See {@link LlmSimulator.Builder#apiKeys(String...)}.
         * @param keys the valid keys
         * @return this builder
         */
        public Builder apiKeys(String... keys) {
            this.simulator.apiKeys(keys);
            return this;
        }

        /**
         * See {@link LlmSimulator.Builder#randomFaults(RandomFaults)}.
         * @param faults the probabilities
         * @return this builder
         */
        public Builder randomFaults(RandomFaults faults) {
            this.simulator.randomFaults(faults);
            return this;
        }

        /**
         * See {@link LlmSimulator.Builder#seed(long)}.
         * @param seed the seed
         * @return this builder
         */
        public Builder seed(long seed) {
            this.simulator.seed(seed);
            return this;
        }

        /**
         * Applies any other simulator setting.
         * @param customizer receives the simulator builder
         * @return this builder
         */
        public Builder configure(Consumer<LlmSimulator.Builder> customizer) {
            customizer.accept(this.simulator);
            return this;
        }

        /**
         * Whether the simulator is {@linkplain LlmSimulator#reset() reset} before each
         * test (default true).
         * @param reset whether to reset
         * @return this builder
         */
        public Builder resetBetweenTests(boolean reset) {
            this.resetBetweenTests = reset;
            return this;
        }

        /**
         * Builds the extension; the simulator starts when the tests do.
         * @return the extension
         */
        public LlmSimulatorExtension build() {
            return new LlmSimulatorExtension(Objects.requireNonNull(this.simulator), this.resetBetweenTests);
        }

    }

}
