// +groupName=e14.errors.rkb.io
package v1
