package io.github.llmthrottle.benchmarks.load;

import io.github.llmthrottle.benchmarks.MessagesBodies;

import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

/**
 * The retry loop many applications start with: catch a 429, sleep one second, try again,
 * five tries in all. No back-off growth, no jitter, {@code retry-after} ignored, no rate
 * limit.
 */
final class HandRolledRetryContender implements Contender {

    static final int TRIES = 5;

    private final RestClient client;

    private final LoadScenario scenario;

    HandRolledRetryContender(String baseUrl, LoadScenario scenario) {
        this.client = PlainRestClients.create(baseUrl);
        this.scenario = scenario;
    }

    @Override
    public void call(String prompt) throws InterruptedException {
        String body = MessagesBodies.singleTurn(this.scenario.model(), this.scenario.maxTokens(), prompt);
        for (int attempt = 1;; attempt++) {
            try {
                PlainRestClients.post(this.client, body);
                return;
            }
            catch (HttpClientErrorException.TooManyRequests ex) {
                if (attempt == TRIES) {
                    throw ex;
                }
                Thread.sleep(1000);
            }
        }
    }

}
