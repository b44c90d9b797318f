package io.github.llmthrottle;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.micrometer.context.ContextExecutorService;
import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ThrottleContextAccessorTests {

    private final ThrottleContext context = new ThrottleContext("anthropic", "claude-opus-4-7", Priority.REALTIME,
            "acme", 0, null);

    @Test
    void aContextAwareExecutorCarriesTheThrottleContextAndClearsItAfterwards() throws Exception {
        ExecutorService plain = Executors.newSingleThreadExecutor();
        ExecutorService executor = ContextExecutorService.wrap(plain,
                () -> ContextSnapshotFactory.builder().build().captureAll());
        try {
            CompletableFuture<ThrottleContext> seen = new CompletableFuture<>();
            try (ThrottleContext.Scope scope = ThrottleContext.open(this.context)) {
                executor.execute(() -> seen.complete(ThrottleContext.current()));
            }
            assertThat(seen.get(10, TimeUnit.SECONDS)).isSameAs(this.context);
            CompletableFuture<ThrottleContext> after = new CompletableFuture<>();
            plain.execute(() -> after.complete(ThrottleContext.current()));
            assertThat(after.get(10, TimeUnit.SECONDS)).isNull();
        }
        finally {
            executor.shutdownNow();
        }
    }

    @Test
    void withoutAContextNothingIsCarried() throws Exception {
        ExecutorService executor = ContextExecutorService.wrap(Executors.newSingleThreadExecutor(),
                () -> ContextSnapshotFactory.builder().build().captureAll());
        try {
            CompletableFuture<ThrottleContext> seen = new CompletableFuture<>();
            executor.execute(() -> seen.complete(ThrottleContext.current()));
            assertThat(seen.get(10, TimeUnit.SECONDS)).isNull();
        }
        finally {
            executor.shutdownNow();
        }
    }

}
