package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.limit.ModelLimiter;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Response;

import static org.assertj.core.api.Assertions.assertThat;

/** What the callbacks of enqueued calls received. */
final class EnqueuedOutcomes implements Callback {

    final List<Integer> codes = new CopyOnWriteArrayList<>();

    final List<IOException> failures = new CopyOnWriteArrayList<>();

    final List<Boolean> interruptedOnFailure = new CopyOnWriteArrayList<>();

    private final CountDownLatch done;

    EnqueuedOutcomes(int calls) {
        this.done = new CountDownLatch(calls);
    }

    @Override
    public void onResponse(Call call, Response response) {
        try (response) {
            this.codes.add(response.code());
        }
        finally {
            this.done.countDown();
        }
    }

    @Override
    public void onFailure(Call call, IOException ex) {
        this.interruptedOnFailure.add(Thread.currentThread().isInterrupted());
        this.failures.add(ex);
        this.done.countDown();
    }

    void await() throws InterruptedException {
        assertThat(this.done.await(60, TimeUnit.SECONDS)).as("every callback called").isTrue();
    }

    /**
     * The threads waiting in llm-throttle's admission ({@code ModelLimiter.acquire}).
     * @return the threads
     */
    static List<Thread> threadsWaitingForAdmission() {
        return Thread.getAllStackTraces()
            .entrySet()
            .stream()
            .filter((thread) -> List.of(thread.getValue())
                .stream()
                .anyMatch((frame) -> frame.getClassName().equals(ModelLimiter.class.getName())
                        && frame.getMethodName().equals("acquire")))
            .map(Map.Entry::getKey)
            .toList();
    }

}
