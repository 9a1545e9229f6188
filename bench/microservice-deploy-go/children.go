package main

// The objects a MicroServiceDeploy owns, one builder per kind, each returning exactly what the controller
// server-side applies: the same fields as examples/microservice-deploy/src/controller/children/*.rs.

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	autoscalingv1ac "k8s.io/client-go/applyconfigurations/autoscaling/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
)

const (
	managedLabel             = "my-domain-ops-controller-make"
	appLabel                 = "app"
	httpPort                 = int32(9898)
	needAuthAnnotation       = "app.ops.my.domain/need-auth"
	configKey                = "ms.properties"
	lastRolloutAtAnnotation  = "app.ops.my.domain/last-rollout-at"
	createAtAnnotation       = "app.ops.my.domain/create-at"
	restartAnnotation        = "app.ops.my.domain/restart-at"
	logMountPath             = "/home/admin/logs"
	configMountPath          = "/home/admin/conf"
	logVolume                = "log"
	configVolume             = "config"
	configFileMode           = int32(0o644)
	hpaMinReplicas           = int32(1)
	hpaMaxReplicas           = int32(10)
	hpaTargetCPUPercent      = int32(81)
	logVolumePermissionsName = "log-volume-mount-hack"
)

// childLabels is `my-domain-ops-controller-make: "true"`, plus `app: <app>` when app is not empty.
func childLabels(app string) map[string]string {
	labels := map[string]string{managedLabel: "true"}
	if app != "" {
		labels[appLabel] = app
	}
	return labels
}

// controllerRef is the controller reference of msd (controller and blockOwnerDeletion set, as
// controllerutil.SetControllerReference sets them).
func controllerRef(msd *MicroServiceDeploy) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(GroupVersion.String()).
		WithKind("MicroServiceDeploy").
		WithName(msd.Name).
		WithUID(msd.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

func serviceFor(msd *MicroServiceDeploy) *corev1ac.ServiceApplyConfiguration {
	spec := &msd.Spec
	return corev1ac.Service(spec.MsName, msd.Namespace).
		WithLabels(childLabels(spec.MsName)).
		WithAnnotations(map[string]string{needAuthAnnotation: strconv.FormatBool(spec.NeedAuth)}).
		WithOwnerReferences(controllerRef(msd)).
		WithSpec(corev1ac.ServiceSpec().
			WithPorts(corev1ac.ServicePort().
				WithName("http").
				WithPort(httpPort).
				WithProtocol(corev1.ProtocolTCP).
				WithTargetPort(intstr.FromInt32(httpPort))).
			WithSelector(map[string]string{appLabel: spec.MsName}))
}

func serviceAccountFor(msd *MicroServiceDeploy) *corev1ac.ServiceAccountApplyConfiguration {
	return corev1ac.ServiceAccount(msd.Spec.MsName, msd.Namespace).
		WithLabels(childLabels("")).
		WithOwnerReferences(controllerRef(msd))
}

func configMapFor(msd *MicroServiceDeploy) *corev1ac.ConfigMapApplyConfiguration {
	spec := &msd.Spec
	return corev1ac.ConfigMap(spec.FullName, msd.Namespace).
		WithLabels(childLabels(spec.MsName)).
		WithOwnerReferences(controllerRef(msd)).
		WithData(map[string]string{configKey: spec.Config})
}

// rolloutStamp is the restart annotation when present, else spec.creationTimestamp, else the object's creation
// time in milliseconds: derived from the object, never from the clock.
func rolloutStamp(msd *MicroServiceDeploy) string {
	if restart, ok := msd.Annotations[restartAnnotation]; ok {
		return restart
	}
	if msd.Spec.CreationTimestamp != "" {
		return msd.Spec.CreationTimestamp
	}
	if msd.CreationTimestamp.IsZero() {
		return ""
	}
	return strconv.FormatInt(msd.CreationTimestamp.UnixMilli(), 10)
}

func fieldRefEnv(name, fieldPath string) *corev1ac.EnvVarApplyConfiguration {
	return corev1ac.EnvVar().
		WithName(name).
		WithValueFrom(corev1ac.EnvVarSource().
			WithFieldRef(corev1ac.ObjectFieldSelector().WithAPIVersion("v1").WithFieldPath(fieldPath)))
}

func resourcesFor(requirements *corev1.ResourceRequirements) *corev1ac.ResourceRequirementsApplyConfiguration {
	resources := corev1ac.ResourceRequirements()
	if requirements.Limits != nil {
		resources.WithLimits(requirements.Limits)
	}
	if requirements.Requests != nil {
		resources.WithRequests(requirements.Requests)
	}
	for _, claim := range requirements.Claims {
		c := corev1ac.ResourceClaim().WithName(claim.Name)
		if claim.Request != "" {
			c.WithRequest(claim.Request)
		}
		resources.WithClaims(c)
	}
	return resources
}

func deploymentFor(msd *MicroServiceDeploy) *appsv1ac.DeploymentApplyConfiguration {
	spec := &msd.Spec
	app := spec.MsName
	stamp := rolloutStamp(msd)
	appLabels := map[string]string{appLabel: app}
	logMount := func() *corev1ac.VolumeMountApplyConfiguration {
		return corev1ac.VolumeMount().WithName(logVolume).WithMountPath(logMountPath)
	}

	container := corev1ac.Container().
		WithName(app).
		WithImage(spec.Image).
		WithImagePullPolicy(corev1.PullAlways).
		WithEnv(
			fieldRefEnv("POD_NAME", "metadata.name"),
			fieldRefEnv("SERVICE_NAME", fmt.Sprintf("metadata.labels['%s']", appLabel))).
		WithPorts(corev1ac.ContainerPort().WithContainerPort(httpPort).WithProtocol(corev1.ProtocolTCP)).
		WithVolumeMounts(logMount(), corev1ac.VolumeMount().WithName(configVolume).WithMountPath(configMountPath))
	if spec.ResourceRequirements != nil {
		container.WithResources(resourcesFor(spec.ResourceRequirements))
	}
	// Host directories are created root-owned; the service may run as another user, so open them up first.
	logPermissions := corev1ac.Container().
		WithName(logVolumePermissionsName).
		WithImage("busybox").
		WithImagePullPolicy(corev1.PullAlways).
		WithCommand("sh", "-c", fmt.Sprintf("chmod -R 777 %s || exit 0", logMountPath)).
		WithVolumeMounts(logMount())

	deploymentSpec := appsv1ac.DeploymentSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(appLabels)).
		WithStrategy(appsv1ac.DeploymentStrategy().WithType("RollingUpdate")).
		WithTemplate(corev1ac.PodTemplateSpec().
			WithLabels(appLabels).
			WithAnnotations(map[string]string{createAtAnnotation: stamp, "prometheus.io/scrape": "true"}).
			WithSpec(corev1ac.PodSpec().
				WithServiceAccountName(app).
				WithContainers(container).
				WithInitContainers(logPermissions).
				WithVolumes(
					corev1ac.Volume().WithName(logVolume).WithHostPath(corev1ac.HostPathVolumeSource().
						WithPath(fmt.Sprintf("/data0/logs/%s/%s", spec.MsName, spec.Version)).
						WithType(corev1.HostPathDirectoryOrCreate)),
					corev1ac.Volume().WithName(configVolume).WithConfigMap(corev1ac.ConfigMapVolumeSource().
						WithName(spec.FullName).
						WithDefaultMode(configFileMode)))))
	// No replica count while the HPA decides (so server-side apply leaves the field to it), zero while idle.
	switch {
	case spec.Idle:
		deploymentSpec.WithReplicas(0)
	case !spec.Autoscaling:
		deploymentSpec.WithReplicas(spec.Replicas)
	}

	return appsv1ac.Deployment(spec.FullName, msd.Namespace).
		WithLabels(childLabels(app)).
		WithAnnotations(map[string]string{lastRolloutAtAnnotation: stamp}).
		WithOwnerReferences(controllerRef(msd)).
		WithSpec(deploymentSpec)
}

func hpaFor(msd *MicroServiceDeploy) *autoscalingv1ac.HorizontalPodAutoscalerApplyConfiguration {
	spec := &msd.Spec
	return autoscalingv1ac.HorizontalPodAutoscaler(spec.FullName, msd.Namespace).
		WithLabels(childLabels(spec.MsName)).
		WithOwnerReferences(controllerRef(msd)).
		WithSpec(autoscalingv1ac.HorizontalPodAutoscalerSpec().
			WithMinReplicas(hpaMinReplicas).
			WithMaxReplicas(hpaMaxReplicas).
			WithScaleTargetRef(autoscalingv1ac.CrossVersionObjectReference().
				WithAPIVersion("apps/v1").
				WithKind("Deployment").
				WithName(spec.FullName)).
			WithTargetCPUUtilizationPercentage(hpaTargetCPUPercent))
}
