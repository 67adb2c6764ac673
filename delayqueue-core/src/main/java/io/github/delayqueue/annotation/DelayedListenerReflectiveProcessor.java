package io.github.delayqueue.annotation;

import java.lang.reflect.Method;

import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.listener.DelayedJobArgumentResolver;
import io.github.delayqueue.listener.DelayedJobInterceptor;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.messaging.handler.annotation.MessageMappingReflectiveProcessor;

/**
 * The reflection a {@link DelayedListener} method needs in a native image, registered when
 * an application is processed ahead of time for each bean class with such methods: the
 * method is invoked by reflection; its payload, read from the job's JSON by Jackson, is
 * bound (the payload parameter's type, or {@code T} of a {@code DelayedJob<T>} parameter,
 * with the types of their properties); the interceptors it names are made by the bean
 * factory. As spring-messaging's processor for {@code @MessageMapping} methods does, with the
 * job's parameters of this module: a {@link DelayedJob} parameter is not a payload, its type
 * argument is.
 */
class DelayedListenerReflectiveProcessor extends MessageMappingReflectiveProcessor {

	private final BindingReflectionHintsRegistrar bindingRegistrar = new BindingReflectionHintsRegistrar();

	@Override
	protected void registerMethodHints(ReflectionHints hints, Method method) {
		super.registerMethodHints(hints, method);
		for (DelayedListener listener : AnnotatedElementUtils.getMergedRepeatableAnnotations(method,
				DelayedListener.class, DelayedListeners.class)) {
			for (Class<? extends DelayedJobInterceptor> interceptor : listener.interceptors()) {
				hints.registerType(interceptor, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
			}
		}
	}

	@Override
	protected void registerParameterHints(ReflectionHints hints, Method method) {
		super.registerParameterHints(hints, method);
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			if (parameter.getParameterType() == DelayedJob.class) {
				ResolvableType payload = ResolvableType.forMethodParameter(parameter).as(DelayedJob.class).getGeneric(0);
				if (payload.resolve() != null) {
					this.bindingRegistrar.registerReflectionHints(hints, payload.getType());
				}
			}
		}
	}

	@Override
	protected boolean couldBePayload(MethodParameter parameter) {
		return !DelayedJobArgumentResolver.isJobParameter(parameter) && super.couldBePayload(parameter);
	}

}
