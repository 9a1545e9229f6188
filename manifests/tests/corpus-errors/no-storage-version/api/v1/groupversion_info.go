// +groupName=e5.errors.rkb.io
package v1
