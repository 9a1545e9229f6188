// +groupName=e11.errors.rkb.io
package v1
