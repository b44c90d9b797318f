package io.github.llmthrottle.annotation;

import io.github.llmthrottle.Throttled;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * The hints {@link ThrottledBeanRegistrationAotProcessor} registers for a bean with a
 * {@code @Throttled} class, and none for a bean without the annotation.
 */
class ThrottledBeanRegistrationAotProcessorTests {

    private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

    @Test
    void classAnnotationCoversEveryPublicMethodAndTheirFallbacks() throws Exception {
        RuntimeHints hints = process(Classifier.class);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(Classifier.class.getMethod("classify", String.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(Classifier.class.getMethod("label", String.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(Classifier.class.getDeclaredMethod("unknown", String.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Classifier.class.getDeclaredMethod("helper")))
            .rejects(hints);
    }

    @Test
    void beanWithoutThrottledMethodsContributesNothing() {
        this.beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(Plain.class));
        assertThat(new ThrottledBeanRegistrationAotProcessor()
            .processAheadOfTime(RegisteredBean.of(this.beanFactory, "plain"))).isNull();
    }

    private RuntimeHints process(Class<?> beanClass) {
        this.beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
        BeanRegistrationAotContribution contribution = new ThrottledBeanRegistrationAotProcessor()
            .processAheadOfTime(RegisteredBean.of(this.beanFactory, "bean"));
        assertThat(contribution).isNotNull();
        TestGenerationContext generationContext = new TestGenerationContext();
        contribution.applyTo(generationContext, mock(BeanRegistrationCode.class));
        return generationContext.getRuntimeHints();
    }

    @Throttled(client = "openai", fallbackMethod = "unknown")
    static class Classifier {

        public String classify(String text) {
            return text;
        }

        public String label(String text) {
            return text;
        }

        String unknown(String text) {
            return "unknown";
        }

        private String helper() {
            return "";
        }

    }

    static class Plain {

        public String answer() {
            return "";
        }

    }

}
