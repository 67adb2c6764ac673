package io.github.delayqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Turns on {@link DelayedListener} detection for applications without Spring Boot's
 * auto-configuration (which turns it on by itself). Needs a bean named
 * {@code delayedListenerContainerFactory} (or the one named by
 * {@link DelayedListener#containerFactory()}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(DelayedListenerBootstrapConfiguration.class)
public @interface EnableDelayedListeners {

}
