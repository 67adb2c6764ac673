package io.github.delayqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Turns on {@link DelayedListener} detection without Spring Boot's auto-configuration; needs a
 * container factory bean named {@code delayedListenerContainerFactory}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(DelayedListenerBootstrapConfiguration.class)
public @interface EnableDelayedListeners {

}
