package io.github.llmthrottle.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The llm-throttle sample application: uses the starter exactly as a user would, against
 * an embedded simulated provider unless an API key is set.
 */
@SpringBootApplication
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

}
